import { type MouseEvent, useEffect, useState } from "react"
import { SIGN_IN_PAGE } from "../../../catalog/domain/SignIn.js"

/** The app's pages; the server answers every one of these paths with the same shell. */
export type Route =
  | { readonly page: "home" }
  | { readonly page: "signIn" }
  | { readonly page: "threads"; readonly projectId: string }
  | { readonly page: "thread"; readonly projectId: string; readonly threadId: string }
  | { readonly page: "newThread"; readonly projectId: string }
  | { readonly page: "waiting"; readonly projectId: string }
  | { readonly page: "machines"; readonly projectId: string }
  | { readonly page: "board"; readonly projectId: string }
  | { readonly page: "task"; readonly projectId: string; readonly taskRef: string }
  | { readonly page: "agents"; readonly projectId: string }
  | { readonly page: "prompts"; readonly projectId: string }
  | { readonly page: "skills"; readonly projectId: string }
  | { readonly page: "skill"; readonly projectId: string; readonly skillId: string }
  | { readonly page: "unknown" }

export const threadsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/threads`
export const threadPath = (projectId: string, threadId: string) => `${threadsPath(projectId)}/${encodeURIComponent(threadId)}`
/** `spawnFrom`: the thread a new one is spawned beside (its group). */
export const newThreadPath = (projectId: string, spawnFrom?: string) =>
  `/projects/${encodeURIComponent(projectId)}/new-thread${spawnFrom === undefined ? "" : `?spawnFrom=${encodeURIComponent(spawnFrom)}`}`
/** The new thread a delegation in the web app offers: prefilled from the agent's automation and the task. */
export const delegationPath = (projectId: string, taskRef: string, projectAgentId: string) =>
  `/projects/${encodeURIComponent(projectId)}/new-thread?${new URLSearchParams({ task: taskRef, agent: projectAgentId }).toString()}`
export const waitingPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/waiting`
export const machinesPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/machines`
/** A task's page, by its ref (DEMO-12) or ID. */
export const taskPath = (projectId: string, taskRef: string) =>
  `/projects/${encodeURIComponent(projectId)}/tasks/${encodeURIComponent(taskRef)}`
/** The board (or table) of the project's tasks; `query` holds the List, the view and the grouping. */
export const boardPath = (projectId: string, query?: URLSearchParams) => {
  const search = query?.toString() ?? ""
  return `/projects/${encodeURIComponent(projectId)}/board${search === "" ? "" : `?${search}`}`
}

export const agentsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/agents`
export const promptsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/prompts`
export const skillsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/skills`
/** A Skill's page (SKILL.md, its files and their edits), by its ID. */
export const skillPath = (projectId: string, skillId: string) => `${skillsPath(projectId)}/${encodeURIComponent(skillId)}`

/** The project a route shows, if any. */
export const projectOf = (route: Route): string | undefined => "projectId" in route ? route.projectId : undefined

export const parseRoute = (pathname: string): Route => {
  const parts = pathname.split("/").filter((part) => part !== "").map(decodeURIComponent)
  if (parts.length === 0) return { page: "home" }
  if (pathname === SIGN_IN_PAGE) return { page: "signIn" }
  const [first, projectId, section, item] = parts
  if (first !== "projects" || projectId === undefined) return { page: "unknown" }
  if (parts.length === 3) {
    if (section === "threads") return { page: "threads", projectId }
    if (section === "new-thread") return { page: "newThread", projectId }
    if (section === "waiting") return { page: "waiting", projectId }
    if (section === "machines") return { page: "machines", projectId }
    if (section === "board") return { page: "board", projectId }
    if (section === "agents") return { page: "agents", projectId }
    if (section === "prompts") return { page: "prompts", projectId }
    if (section === "skills") return { page: "skills", projectId }
  }
  if (parts.length === 4 && section === "tasks" && item !== undefined) return { page: "task", projectId, taskRef: item }
  if (parts.length === 4 && section === "skills" && item !== undefined) return { page: "skill", projectId, skillId: item }
  return parts.length === 4 && section === "threads" && item !== undefined
    ? { page: "thread", projectId, threadId: item }
    : { page: "unknown" }
}

const NAVIGATED = "trellis:navigated"

export const navigate = (path: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) window.history.replaceState(null, "", path)
  else window.history.pushState(null, "", path)
  window.dispatchEvent(new Event(NAVIGATED))
}

export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseRoute(window.location.pathname))
  useEffect(() => {
    const update = () => setRoute(parseRoute(window.location.pathname))
    window.addEventListener("popstate", update)
    window.addEventListener(NAVIGATED, update)
    return () => {
      window.removeEventListener("popstate", update)
      window.removeEventListener(NAVIGATED, update)
    }
  }, [])
  return route
}

/**
 * For an `<a href>`'s onClick: a plain click navigates in the page, while a modified or middle
 * click keeps the browser's own meaning (a new tab).
 */
export const followLink = (event: MouseEvent<HTMLAnchorElement>) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  event.preventDefault()
  navigate(event.currentTarget.pathname + event.currentTarget.search + event.currentTarget.hash)
  window.scrollTo(0, 0)
}
