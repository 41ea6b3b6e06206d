import { Either, Schema } from "effect"
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from "react"
import { keepOpen } from "./liveSource"
import { oneForAllTabs } from "./oneForAllTabs"

/**
 * What the page learns from its project's changes stream (`GET /api/projects/:projectId/changes`,
 * catalog/bridge/ProjectsApi.ts): the threads whose state changed and the machines that went online or
 * offline, or, when the stream cannot say what changed while it was down, that anything may have. Pages read again what they show
 * of those instead of asking on a timer, so an idle tab makes no request.
 */
export type ProjectChange =
  | {
    readonly _tag: "Named"
    readonly threadIds: ReadonlySet<string>
    readonly profileIds: ReadonlySet<string>
    /** Tasks, Lists and labels written: what the board and the task pages show. */
    readonly taskIds: ReadonlySet<string>
    readonly listIds: ReadonlySet<string>
    readonly labelIds: ReadonlySet<string>
    /** Project agents, prompts and Skills written: what the settings pages show. */
    readonly agentIds: ReadonlySet<string>
    readonly promptIds: ReadonlySet<string>
    readonly skillIds: ReadonlySet<string>
    /** Artifacts written, their comment threads included: what the artifact page shows. */
    readonly artifactIds: ReadonlySet<string>
  }
  | { readonly _tag: "Anything" }

export type ChangeListener = (change: ProjectChange) => void

const Ids = Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] })
const decodeFrame = Schema.decodeUnknownEither(Schema.parseJson(Schema.Struct({
  threadIds: Ids,
  profileIds: Ids,
  taskIds: Ids,
  listIds: Ids,
  labelIds: Ids,
  agentIds: Ids,
  promptIds: Ids,
  skillIds: Ids,
  artifactIds: Ids
})))

/** A frame of the stream as the tab holding it hands it to the others (structured-cloneable). */
type StreamMessage =
  | { readonly _tag: "Changes"; readonly id: string; readonly data: string }
  | { readonly _tag: "Anything"; readonly id: string | undefined }

interface Changes {
  readonly subscribe: (listener: ChangeListener) => () => void
}

const ChangesContext = createContext<Changes>({ subscribe: () => () => undefined })

/** One stream per browser profile for the project shown (./oneForAllTabs.ts), shared by every part of each page that listens. */
export const ProjectChangesProvider = (
  { projectId, children }: { readonly projectId: string | undefined; readonly children: ReactNode }
) => {
  const [changes] = useState(() => {
    const listeners = new Set<ChangeListener>()
    return {
      listeners,
      tell: (change: ProjectChange) => listeners.forEach((listener) => listener(change)),
      subscribe: (listener: ChangeListener) => {
        listeners.add(listener)
        return () => {
          listeners.delete(listener)
        }
      }
    }
  })

  useEffect(() => {
    if (projectId === undefined) return
    // The id of the last frame any tab heard: a new stream (after an HTTP error, or in the tab that
    // takes the stream over) resumes after it. EventSource's own reconnects send it as
    // Last-Event-ID, the opening id-only frame's too.
    let lastId: string | undefined
    const receive = (message: StreamMessage) => {
      if (message.id !== undefined) lastId = message.id
      if (message._tag === "Anything") return changes.tell({ _tag: "Anything" })
      const frame = decodeFrame(message.data)
      if (Either.isLeft(frame)) return
      const named = frame.right
      changes.tell({
        _tag: "Named",
        threadIds: new Set(named.threadIds),
        profileIds: new Set(named.profileIds),
        taskIds: new Set(named.taskIds),
        listIds: new Set(named.listIds),
        labelIds: new Set(named.labelIds),
        agentIds: new Set(named.agentIds),
        promptIds: new Set(named.promptIds),
        skillIds: new Set(named.skillIds),
        artifactIds: new Set(named.artifactIds)
      })
    }
    const path = `/api/projects/${encodeURIComponent(projectId)}/changes`
    return oneForAllTabs<StreamMessage>(
      `trellis-changes:${projectId}`,
      (publish, takingOver) =>
        keepOpen(() => lastId === undefined ? path : `${path}?after=${encodeURIComponent(lastId)}`, {
          listen: (source) => {
            source.addEventListener("reset", (message: MessageEvent<unknown>) => {
              publish({ _tag: "Anything", id: message.lastEventId })
            })
            source.addEventListener("changes", (message: MessageEvent<unknown>) => {
              if (typeof message.data === "string") publish({ _tag: "Changes", id: message.lastEventId, data: message.data })
            })
          },
          // The server replays what changed while the stream was down (or says `reset`), unless no
          // tab learnt where it stood: then everything is read again, as it is by a tab taking the
          // stream over without knowing where the last one stopped.
          opened: (reopened) => {
            if ((reopened || takingOver) && lastId === undefined) publish({ _tag: "Anything", id: undefined })
          }
        }),
      receive
    )
  }, [projectId, changes])

  return <ChangesContext.Provider value={changes}>{children}</ChangesContext.Provider>
}

/** What a part of the page shows: some threads (or any of the project's), the person's machines, the project's tasks, agents, prompts, Skills or some artifacts. */
export interface Watched {
  readonly threads?: ReadonlyArray<string> | "any"
  readonly machines?: boolean
  /** Any task, List or label of the project. */
  readonly tasks?: boolean
  readonly agents?: boolean
  readonly prompts?: boolean
  readonly skills?: boolean
  readonly artifacts?: ReadonlyArray<string>
}

/** True when the change may concern what is watched. */
export const concerns = (change: ProjectChange, watched: Watched): boolean => {
  if (change._tag === "Anything") return true
  const threads = watched.threads ?? []
  return (threads === "any" ? change.threadIds.size > 0 : threads.some((id) => change.threadIds.has(id))) ||
    (watched.machines === true && change.profileIds.size > 0) ||
    (watched.tasks === true && change.taskIds.size + change.listIds.size + change.labelIds.size > 0) ||
    (watched.agents === true && change.agentIds.size > 0) ||
    (watched.prompts === true && change.promptIds.size > 0) ||
    (watched.skills === true && change.skillIds.size > 0) ||
    (watched.artifacts ?? []).some((id) => change.artifactIds.has(id))
}

/** Calls `onChange` for each change of the project while the component is mounted. */
export const useProjectChanges = (onChange: ChangeListener): void => {
  const changes = useContext(ChangesContext)
  const latest = useRef(onChange)
  latest.current = onChange
  useEffect(() => changes.subscribe((change) => latest.current(change)), [changes])
}

/**
 * Calls `reload` when a change concerns what is watched: at once, then at most every `spacingMs`
 * (a list of the whole project in a busy project would otherwise be read on every frame).
 */
export const useReloadOnChange = (reload: () => void, watched: Watched, spacingMs = 0): void => {
  const last = useRef(0)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useEffect(() => () => clearTimeout(timer.current), [])
  useProjectChanges((change) => {
    if (!concerns(change, watched) || timer.current !== undefined) return
    const run = () => {
      timer.current = undefined
      last.current = Date.now()
      reload()
    }
    const wait = last.current + spacingMs - Date.now()
    if (wait <= 0) run()
    else timer.current = setTimeout(run, wait)
  })
}
