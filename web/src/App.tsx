import { Option, Schema } from "effect"
import { QueryClientProvider } from "@tanstack/react-query"
import { lazy, Suspense, useCallback, useEffect, useState } from "react"
import { returnPath, SIGN_IN_PAGE, SignInLinkReason, signInPagePath } from "../../catalog/domain/SignIn.js"
import { describeError, isSignedOut, signOut, useTool } from "./lib/api"
import { SignInPage } from "./pages/SignIn"
import { ThreadPage } from "./pages/Thread"
import { MachinesPage } from "./pages/Machines"
import { NewThreadPage } from "./pages/NewThread"
import { ThreadsPage } from "./pages/Threads"
import { WaitingPage } from "./pages/Waiting"
import { useWaitingCount } from "./waitingCount"
import { ProjectChangesProvider } from "./lib/projectChanges"
import { queryClient } from "./lib/queries"
import {
  agentsPath,
  boardPath,
  followLink,
  machinesPath,
  navigate,
  newThreadPath,
  projectOf,
  promptsPath,
  type Route,
  skillsPath,
  threadsPath,
  useRoute,
  waitingPath
} from "./lib/router"

// The board brings the task tools' Schemas with it (./board/taskTools.ts): loaded when first opened.
const BoardPage = lazy(() => import("./pages/Board").then((module) => ({ default: module.BoardPage })))
const TaskPage = lazy(() => import("./pages/Task").then((module) => ({ default: module.TaskPage })))
const AgentsPage = lazy(() => import("./pages/Agents").then((module) => ({ default: module.AgentsPage })))
const PromptsPage = lazy(() => import("./pages/Prompts").then((module) => ({ default: module.PromptsPage })))
const SkillsPage = lazy(() => import("./pages/Skills").then((module) => ({ default: module.SkillsPage })))
const SkillPage = lazy(() => import("./pages/Skill").then((module) => ({ default: module.SkillPage })))
const SearchDialog = lazy(() => import("./search/SearchDialog").then((module) => ({ default: module.SearchDialog })))

/** Where typing `/` is text, not a shortcut. */
const isTyping = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))

/** `/` (outside a field) or Ctrl/⌘K opens search. */
const useSearchShortcut = (open: () => void) =>
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const slash = event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target)
      const commandK = event.key.toLowerCase() === "k" && (event.ctrlKey || event.metaKey)
      if (!slash && !commandK) return
      event.preventDefault()
      open()
    }
    window.addEventListener("keydown", onKey)
    return () => window.removeEventListener("keydown", onKey)
  }, [open])

export const App = () => {
  const route = useRoute()
  return route.page === "signIn" ? <SignIn /> : (
    <QueryClientProvider client={queryClient}>
      <ProjectChangesProvider projectId={projectOf(route)}>
        <SignedIn route={route} />
      </ProjectChangesProvider>
    </QueryClientProvider>
  )
}

/**
 * `/sign-in?reason=…&next=…`: where a refused one-time link lands (the reason) and where the app
 * goes when it finds itself signed out (the page asked for, returned to once signed in).
 */
const SignIn = () => {
  const query = new URLSearchParams(window.location.search)
  const reason = Option.getOrUndefined(Schema.decodeUnknownOption(SignInLinkReason)(query.get("reason")))
  const next = returnPath(query.get("next")) ?? "/"
  // A full load after signing in: every view is read again as the new session sees it.
  return <SignInPage reason={reason} next={next} onSignedIn={() => window.location.assign(next)} />
}

const SignedIn = ({ route }: { readonly route: Route }) => {
  const [projects] = useTool("list_projects", {})
  const signedOut = projects._tag === "Failed" && isSignedOut(projects.error)
  const current = projectOf(route)
  const firstProject = projects._tag === "Ready" ? projects.value.projects[0]?.projectId : undefined
  const waiting = useWaitingCount(current)
  const [searching, setSearching] = useState(false)
  const openSearch = useCallback(() => setSearching(true), [])
  useSearchShortcut(openSearch)

  useEffect(() => {
    if (route.page === "home" && firstProject !== undefined) navigate(threadsPath(firstProject), { replace: true })
  }, [route.page, firstProject])
  // On a phone the sections scroll sideways in one row: the current one is brought into it.
  useEffect(() => {
    document.querySelector(".sections a[aria-current='page']")?.scrollIntoView({ block: "nearest", inline: "nearest" })
  }, [route.page])
  useEffect(() => {
    const asked = window.location.pathname + window.location.search
    if (signedOut) navigate(signInPagePath({ next: asked === "/" ? undefined : asked }), { replace: true })
  }, [signedOut])

  if (signedOut) return null
  if (projects._tag === "Loading") return <p className="page-status" role="status">Loading…</p>
  if (projects._tag === "Failed") {
    return <p className="page-status" role="alert">Cannot load your projects: {describeError(projects.error)}</p>
  }

  const list = projects.value.projects
  return (
    <div className="shell">
      <header className="topbar">
        <a className="brand" href="/" aria-label="Trellis home" onClick={followLink}>Trellis</a>
        <label className="switcher">
          <span className="visually-hidden">Project</span>
          <select
            value={current ?? firstProject ?? ""}
            onChange={(event) => navigate(threadsPath(event.currentTarget.value))}
            aria-label="Project"
          >
            {list.map((project) => (
              <option key={project.projectId} value={project.projectId}>
                {project.organization.name} / {project.name} ({project.ref})
              </option>
            ))}
          </select>
        </label>
        {current !== undefined ?
          (
            <nav className="sections" aria-label="Sections">
              <a
                href={threadsPath(current)}
                onClick={followLink}
                aria-current={route.page === "threads" || route.page === "thread" ? "page" : undefined}
              >
                Threads
              </a>
              <a
                href={boardPath(current)}
                onClick={followLink}
                aria-current={route.page === "board" || route.page === "task" ? "page" : undefined}
              >
                Tasks
              </a>
              <a href={waitingPath(current)} onClick={followLink} aria-current={route.page === "waiting" ? "page" : undefined}>
                Waiting on you{waiting > 0 ? <span className="count" aria-label={`${waiting} waiting`}>{waiting}</span> : null}
              </a>
              <a href={machinesPath(current)} onClick={followLink} aria-current={route.page === "machines" ? "page" : undefined}>
                Machines
              </a>
              <a href={newThreadPath(current)} onClick={followLink} aria-current={route.page === "newThread" ? "page" : undefined}>
                New thread
              </a>
              <a href={agentsPath(current)} onClick={followLink} aria-current={route.page === "agents" ? "page" : undefined}>
                Agents
              </a>
              <a href={promptsPath(current)} onClick={followLink} aria-current={route.page === "prompts" ? "page" : undefined}>
                Prompts
              </a>
              <a
                href={skillsPath(current)}
                onClick={followLink}
                aria-current={route.page === "skills" || route.page === "skill" ? "page" : undefined}
              >
                Skills
              </a>
            </nav>
          ) :
          null}
        {current === undefined ? null : (
          <button type="button" className="quiet" onClick={openSearch} aria-keyshortcuts="/ Control+K Meta+K">
            Search <kbd>/</kbd>
          </button>
        )}
        <button
          type="button"
          className="quiet"
          onClick={() => {
            void signOut().then(() => navigate(SIGN_IN_PAGE))
          }}
        >
          Sign out
        </button>
      </header>
      {searching && current !== undefined
        ? (
          <Suspense fallback={null}>
            <SearchDialog projectId={current} onClose={() => setSearching(false)} />
          </Suspense>
        )
        : null}
      <main className={route.page === "board" ? "wide" : undefined}>
        {list.length === 0 ? <p className="page-status">You have no projects yet.</p> : null}
        {route.page === "threads" ? <ThreadsPage key={route.projectId} projectId={route.projectId} /> : null}
        {route.page === "thread" ? <ThreadPage projectId={route.projectId} threadId={route.threadId} /> : null}
        {route.page === "newThread" ? <NewThreadPage key={route.projectId} projectId={route.projectId} /> : null}
        {route.page === "waiting" ? <WaitingPage key={route.projectId} projectId={route.projectId} /> : null}
        {route.page === "machines" ? <MachinesPage key={route.projectId} projectId={route.projectId} /> : null}
        {route.page === "board" || route.page === "task"
          ? (
            <Suspense fallback={<p className="page-status" role="status">Loading…</p>}>
              {route.page === "board"
                ? <BoardPage key={route.projectId} projectId={route.projectId} />
                : <TaskPage key={`${route.projectId}/${route.taskRef}`} projectId={route.projectId} taskRef={route.taskRef} />}
            </Suspense>
          )
          : null}
        {route.page === "agents" || route.page === "prompts" || route.page === "skills" || route.page === "skill"
          ? (
            <Suspense fallback={<p className="page-status" role="status">Loading…</p>}>
              {route.page === "agents" ? <AgentsPage key={route.projectId} projectId={route.projectId} /> : null}
              {route.page === "prompts" ? <PromptsPage key={route.projectId} projectId={route.projectId} /> : null}
              {route.page === "skills" ? <SkillsPage key={route.projectId} projectId={route.projectId} /> : null}
              {route.page === "skill"
                ? <SkillPage key={`${route.projectId}/${route.skillId}`} projectId={route.projectId} skillId={route.skillId} />
                : null}
            </Suspense>
          )
          : null}
        {route.page === "unknown"
          ? (
            <p className="page-status">
              There is no page here. <a href="/">Go to your threads</a>.
            </p>
          )
          : null}
      </main>
    </div>
  )
}
