import { Outlet, useParams, useRouterState } from "@tanstack/react-router"
import { Option, Schema } from "effect"
import { lazy, Suspense, useCallback, useEffect, useState } from "react"
import { returnPath, SIGN_IN_PAGE, SignInLinkReason, signInPagePath } from "../../catalog/domain/SignIn.js"
import { describeError, isSignedOut, signOut } from "./lib/api"
import { useTool } from "./lib/useTool"
import { ProjectChangesProvider } from "./lib/projectChanges"
import {
  agentsPath,
  boardPath,
  followLink,
  machinesPath,
  navigate,
  newThreadPath,
  promptsPath,
  skillsPath,
  threadsPath,
  waitingPath
} from "./lib/router"
import { SignInPage } from "./pages/SignIn"
import { useWaitingCount } from "./waitingCount"

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

/** The route the page shows (../routes.tsx): its id, such as `/projects/$projectId/threads`. */
const usePage = () => useRouterState({ select: (state) => state.matches.at(-1)?.routeId })

/** The app around every page: the sign-in page alone, every other page in the signed-in shell. */
export const Root = () => {
  const page = usePage()
  const { projectId } = useParams({ strict: false })
  return page === SIGN_IN_PAGE ? <Outlet /> : (
    <ProjectChangesProvider projectId={projectId}>
      <SignedIn projectId={projectId} />
    </ProjectChangesProvider>
  )
}

/** `/`: the first project's threads, once the projects are read (the shell moves there). */
export const Home = () => null

export const NotFound = () => (
  <p className="page-status">
    There is no page here. <a href="/">Go to your threads</a>.
  </p>
)

/**
 * `/sign-in?reason=…&next=…`: where a refused one-time link lands (the reason) and where the app
 * goes when it finds itself signed out (the page asked for, returned to once signed in).
 */
export const SignIn = () => {
  const query = new URLSearchParams(window.location.search)
  const reason = Option.getOrUndefined(Schema.decodeUnknownOption(SignInLinkReason)(query.get("reason")))
  const next = returnPath(query.get("next")) ?? "/"
  // A full load after signing in: every view is read again as the new session sees it.
  return <SignInPage reason={reason} next={next} onSignedIn={() => window.location.assign(next)} />
}

const SignedIn = ({ projectId: current }: { readonly projectId: string | undefined }) => {
  const page = usePage()
  const [projects] = useTool("list_projects", {})
  const signedOut = projects._tag === "Failed" && isSignedOut(projects.error)
  const firstProject = projects._tag === "Ready" ? projects.value.projects[0]?.projectId : undefined
  const waiting = useWaitingCount(current)
  const [searching, setSearching] = useState(false)
  const openSearch = useCallback(() => setSearching(true), [])
  useSearchShortcut(openSearch)

  useEffect(() => {
    if (page === "/" && firstProject !== undefined) navigate(threadsPath(firstProject), { replace: true })
  }, [page, firstProject])
  // On a phone the sections scroll sideways in one row: the current one is brought into it.
  useEffect(() => {
    document.querySelector(".sections a[aria-current='page']")?.scrollIntoView({ block: "nearest", inline: "nearest" })
  }, [page])
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
                aria-current={page === "/projects/$projectId/threads" || page === "/projects/$projectId/threads/$threadId"
                  ? "page"
                  : undefined}
              >
                Threads
              </a>
              <a
                href={boardPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/board" || page === "/projects/$projectId/tasks/$taskRef" ? "page" : undefined}
              >
                Tasks
              </a>
              <a
                href={waitingPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/waiting" ? "page" : undefined}
              >
                Waiting on you{waiting > 0 ? <span className="count" aria-label={`${waiting} waiting`}>{waiting}</span> : null}
              </a>
              <a
                href={machinesPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/machines" ? "page" : undefined}
              >
                Machines
              </a>
              <a
                href={newThreadPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/new-thread" ? "page" : undefined}
              >
                New thread
              </a>
              <a href={agentsPath(current)} onClick={followLink} aria-current={page === "/projects/$projectId/agents" ? "page" : undefined}>
                Agents
              </a>
              <a
                href={promptsPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/prompts" ? "page" : undefined}
              >
                Prompts
              </a>
              <a
                href={skillsPath(current)}
                onClick={followLink}
                aria-current={page === "/projects/$projectId/skills" || page === "/projects/$projectId/skills/$skillId"
                  ? "page"
                  : undefined}
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
      <main
        className={page === "/projects/$projectId/board"
          ? "wide"
          : page === "/projects/$projectId/artifacts/$artifactId"
          ? "roomy"
          : undefined}
      >
        {list.length === 0 ? <p className="page-status">You have no projects yet.</p> : null}
        <Suspense fallback={<p className="page-status" role="status">Loading…</p>}>
          <Outlet />
        </Suspense>
      </main>
    </div>
  )
}
