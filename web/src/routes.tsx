import { createRootRoute, createRoute, createRouter } from "@tanstack/react-router"
import { lazy, type ReactNode } from "react"
import { SIGN_IN_PAGE } from "../../catalog/domain/SignIn.js"
import { Home, NotFound, Root, SignIn } from "./App"
import { history } from "./lib/router"
import { MachinesPage } from "./pages/Machines"
import { NewThreadPage } from "./pages/NewThread"
import { ThreadPage } from "./pages/Thread"
import { ThreadsPage } from "./pages/Threads"
import { WaitingPage } from "./pages/Waiting"

/**
 * The app's pages as TanStack Router routes: each path's params typed where its page reads them.
 * The server answers every one of these paths with the same shell (src/platform/http/WebApp.ts).
 */

// The board and the task pages bring the task tools' Schemas (./board/taskTools.ts), the settings
// pages theirs: each loads when first opened.
const BoardPage = lazy(() => import("./pages/Board").then((module) => ({ default: module.BoardPage })))
const TaskPage = lazy(() => import("./pages/Task").then((module) => ({ default: module.TaskPage })))
const AgentsPage = lazy(() => import("./pages/Agents").then((module) => ({ default: module.AgentsPage })))
const PromptsPage = lazy(() => import("./pages/Prompts").then((module) => ({ default: module.PromptsPage })))
const SkillsPage = lazy(() => import("./pages/Skills").then((module) => ({ default: module.SkillsPage })))
const SkillPage = lazy(() => import("./pages/Skill").then((module) => ({ default: module.SkillPage })))
// The artifact page brings its Markdown parser with source positions (react-markdown, remark-gfm).
const ArtifactPage = lazy(() => import("./pages/Artifact").then((module) => ({ default: module.ArtifactPage })))

const rootRoute = createRootRoute({ component: Root, notFoundComponent: NotFound })
const page = <P extends string>(path: P) => ({ getParentRoute: () => rootRoute, path })

const homeRoute = createRoute({ ...page("/"), component: Home })
const signInRoute = createRoute({ ...page(SIGN_IN_PAGE), component: SignIn })

// A page keyed by its project (and item) starts afresh when either changes.
const threadsRoute = createRoute({ ...page("/projects/$projectId/threads"), component: Threads })
function Threads(): ReactNode {
  const { projectId } = threadsRoute.useParams()
  return <ThreadsPage key={projectId} projectId={projectId} />
}
const threadRoute = createRoute({ ...page("/projects/$projectId/threads/$threadId"), component: Thread })
function Thread(): ReactNode {
  const { projectId, threadId } = threadRoute.useParams()
  return <ThreadPage projectId={projectId} threadId={threadId} />
}
const newThreadRoute = createRoute({ ...page("/projects/$projectId/new-thread"), component: NewThread })
function NewThread(): ReactNode {
  const { projectId } = newThreadRoute.useParams()
  const search = newThreadRoute.useSearch()
  // The prefill (`?spawnFrom=`, `?task=&agent=`) is read when the form starts: a new one starts it again.
  return <NewThreadPage key={`${projectId}?${JSON.stringify(search)}`} projectId={projectId} />
}
const waitingRoute = createRoute({ ...page("/projects/$projectId/waiting"), component: Waiting })
function Waiting(): ReactNode {
  const { projectId } = waitingRoute.useParams()
  return <WaitingPage key={projectId} projectId={projectId} />
}
const machinesRoute = createRoute({ ...page("/projects/$projectId/machines"), component: Machines })
function Machines(): ReactNode {
  const { projectId } = machinesRoute.useParams()
  return <MachinesPage key={projectId} projectId={projectId} />
}
const boardRoute = createRoute({ ...page("/projects/$projectId/board"), component: Board })
function Board(): ReactNode {
  const { projectId } = boardRoute.useParams()
  return <BoardPage key={projectId} projectId={projectId} />
}
const taskRoute = createRoute({ ...page("/projects/$projectId/tasks/$taskRef"), component: Task })
function Task(): ReactNode {
  const { projectId, taskRef } = taskRoute.useParams()
  return <TaskPage key={`${projectId}/${taskRef}`} projectId={projectId} taskRef={taskRef} />
}
const agentsRoute = createRoute({ ...page("/projects/$projectId/agents"), component: Agents })
function Agents(): ReactNode {
  const { projectId } = agentsRoute.useParams()
  return <AgentsPage key={projectId} projectId={projectId} />
}
const promptsRoute = createRoute({ ...page("/projects/$projectId/prompts"), component: Prompts })
function Prompts(): ReactNode {
  const { projectId } = promptsRoute.useParams()
  return <PromptsPage key={projectId} projectId={projectId} />
}
const skillsRoute = createRoute({ ...page("/projects/$projectId/skills"), component: Skills })
function Skills(): ReactNode {
  const { projectId } = skillsRoute.useParams()
  return <SkillsPage key={projectId} projectId={projectId} />
}
const skillRoute = createRoute({ ...page("/projects/$projectId/skills/$skillId"), component: Skill })
function Skill(): ReactNode {
  const { projectId, skillId } = skillRoute.useParams()
  return <SkillPage key={`${projectId}/${skillId}`} projectId={projectId} skillId={skillId} />
}
const artifactRoute = createRoute({ ...page("/projects/$projectId/artifacts/$artifactId"), component: Artifact })
function Artifact(): ReactNode {
  const { artifactId, projectId } = artifactRoute.useParams()
  return <ArtifactPage key={`${projectId}/${artifactId}`} projectId={projectId} artifactId={artifactId} />
}

export const router = createRouter({
  history,
  routeTree: rootRoute.addChildren([
    homeRoute,
    signInRoute,
    threadsRoute,
    threadRoute,
    newThreadRoute,
    waitingRoute,
    machinesRoute,
    boardRoute,
    taskRoute,
    agentsRoute,
    promptsRoute,
    skillsRoute,
    skillRoute,
    artifactRoute
  ])
})

declare module "@tanstack/react-router" {
  interface Register {
    router: typeof router
  }
}
