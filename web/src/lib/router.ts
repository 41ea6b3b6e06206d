import { createBrowserHistory } from "@tanstack/react-router"
import type { MouseEvent } from "react"

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

/** An artifact's page: the document with its comment threads. */
export const artifactPath = (projectId: string, artifactId: string) =>
  `/projects/${encodeURIComponent(projectId)}/artifacts/${encodeURIComponent(artifactId)}`

export const agentsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/agents`
export const promptsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/prompts`
export const skillsPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/skills`
/** A Skill's page (SKILL.md, its files and their edits), by its ID. */
export const skillPath = (projectId: string, skillId: string) => `${skillsPath(projectId)}/${encodeURIComponent(skillId)}`

/**
 * The browser history the router (../routes.tsx) follows. Pages move through it by path (the
 * builders above), which the router matches against its typed routes.
 */
export const history = createBrowserHistory()

export const navigate = (path: string, options: { readonly replace?: boolean } = {}) => {
  if (options.replace === true) history.replace(path)
  else history.push(path)
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
