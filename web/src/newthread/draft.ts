import type { AvailableCli, CliPath, CliProfile } from "../../../catalog/domain/CliProfile.js"
import type { CliType } from "../../../catalog/domain/CliType.js"
import { Schema } from "effect"
import type { CreateThread } from "../../../catalog/Threads.js"

/**
 * What the person chose for their last new thread in a project, kept in localStorage to prefill
 * the next one: where and how it ran, never what it said (no content, title or task) and nothing
 * secret.
 */
export const LastChoice = Schema.Struct({
  profileId: Schema.String,
  pathId: Schema.String,
  cliType: Schema.String,
  cliModel: Schema.String,
  cliEffort: Schema.String,
  cliMode: Schema.String
})
export type LastChoice = typeof LastChoice.Type

/** The form as the person fills it: every control's value, as text or a flag. */
export interface Draft {
  readonly title: string
  readonly content: string
  readonly profileId: string
  readonly pathId: string
  readonly cliType: string
  readonly cliModel: string
  readonly cliEffort: string
  readonly cliMode: string
  readonly projectAgentId: string
  readonly taskId: string
  readonly sourceThreadId: string
  readonly worktree: boolean
  readonly branch: string
  readonly baseRef: string
  readonly startFromOrigin: boolean
}

export const emptyDraft = (sourceThreadId: string, last: LastChoice | undefined): Draft => ({
  title: "",
  content: "",
  profileId: last?.profileId ?? "",
  pathId: last?.pathId ?? "",
  cliType: last?.cliType ?? "",
  cliModel: last?.cliModel ?? "",
  cliEffort: last?.cliEffort ?? "",
  cliMode: last?.cliMode ?? "",
  projectAgentId: "",
  taskId: "",
  sourceThreadId,
  worktree: false,
  branch: "",
  baseRef: "",
  startFromOrigin: false
})

/** The runtimes the CLI runs (docs/agents.md §1): offered when a machine has not reported its own yet. */
const EXECUTABLE: ReadonlyArray<CliType> = ["claude", "codex", "opencode"]

/** What a machine offers; `reported: false` when it has said nothing yet (it reports at `trellis agent start`). */
export const runtimesOf = (
  profile: CliProfile | undefined
): { readonly runtimes: ReadonlyArray<AvailableCli>; readonly reported: boolean } =>
  profile !== undefined && profile.availableClis.length > 0
    ? { runtimes: profile.availableClis, reported: true }
    : { runtimes: EXECUTABLE.map((type) => ({ type, version: "" })), reported: false }

/** Checkouts first, each followed by its worktrees: the order of the machine's own tree. */
export const pathsInOrder = (paths: ReadonlyArray<CliPath>): ReadonlyArray<CliPath> => {
  const roots = paths.filter((path) => path.kind === "checkout" || paths.every((parent) => parent.pathId !== path.parentPathId))
  return roots.flatMap((
    root
  ) => [root, ...paths.filter((path) => path !== root && path.kind === "worktree" && path.parentPathId === root.pathId)])
}

const pick = <A>(options: ReadonlyArray<A>, wanted: (option: A) => boolean): A | undefined => options.find(wanted) ?? options[0]

/** The form's target, each choice one the chosen machine offers. */
export interface Target {
  readonly profile: CliProfile | undefined
  readonly path: CliPath | undefined
  readonly runtime: AvailableCli | undefined
  readonly runtimes: ReadonlyArray<AvailableCli>
  readonly reported: boolean
  readonly models: ReadonlyArray<string>
  readonly efforts: ReadonlyArray<string>
}

/**
 * The target the draft names, where every choice that the machine does not offer (a profile gone,
 * a path of another machine, a runtime it lacks, a model of another runtime) falls back to the
 * machine's first: what a select shows is always what is sent.
 */
export const targetOf = (draft: Draft, profiles: ReadonlyArray<CliProfile>): Target => {
  const profile = pick(profiles, (candidate) => candidate.profileId === draft.profileId)
  const paths = pathsInOrder(profile?.paths ?? [])
  const path = paths.find((candidate) => candidate.pathId === draft.pathId) ?? paths.find((candidate) => candidate.kind === "checkout") ??
    paths[0]
  const { runtimes, reported } = runtimesOf(profile)
  const runtime = pick(runtimes, (candidate) => candidate.type === draft.cliType)
  const models = (runtime?.cliModels ?? []).map((model) => model.model)
  const model = runtime?.cliModels?.find((candidate) => candidate.model === draft.cliModel)
  return { profile, path, runtime, runtimes, reported, models, efforts: model?.efforts ?? [] }
}

/** The model as sent: one the runtime lists, or, when it lists none, whatever the person typed. */
export const modelOf = (draft: Draft, target: Target): string =>
  target.models.length === 0 ? draft.cliModel.trim() : target.models.includes(draft.cliModel) ? draft.cliModel : ""

export const effortOf = (draft: Draft, target: Target): string => target.efforts.includes(draft.cliEffort) ? draft.cliEffort : ""

/** The modes the form offers (SPEC names `plan`; "" is the runtime's usual one). */
export const MODES: ReadonlyArray<string> = ["", "plan"]
export const modeOf = (draft: Draft): string => MODES.includes(draft.cliMode) ? draft.cliMode : ""

const optional = (value: string): string | undefined => value.trim() === "" ? undefined : value.trim()

/**
 * `create_thread`'s arguments. The page checks nothing create_thread would check itself: the
 * server's refusal names the field, and the form shows it there, so both always agree.
 */
export const argumentsOf = (draft: Draft, target: Target, projectId: string): Schema.Schema.Encoded<typeof CreateThread.input> => {
  const title = optional(draft.title)
  const model = optional(modelOf(draft, target))
  const effort = optional(effortOf(draft, target))
  const mode = optional(modeOf(draft))
  const agent = optional(draft.projectAgentId)
  const task = optional(draft.taskId)
  const source = optional(draft.sourceThreadId)
  const pathId = target.path?.pathId ?? ""
  return {
    content: draft.content,
    projectId,
    profileId: target.profile?.profileId ?? "",
    pathId,
    ...(target.runtime === undefined ? {} : { cliType: target.runtime.type }),
    ...(title === undefined ? {} : { title }),
    ...(model === undefined ? {} : { cliModel: model }),
    ...(effort === undefined ? {} : { cliEffort: effort }),
    ...(mode === undefined ? {} : { cliMode: mode }),
    ...(agent === undefined ? {} : { projectAgentId: agent }),
    ...(task === undefined ? {} : { taskId: task }),
    ...(source === undefined ? {} : { sourceThreadId: source }),
    // Branch and base are sent as typed: create_thread validates a git refname and never sanitizes it.
    ...(draft.worktree
      ? {
        worktree: {
          parentPathId: pathId,
          branch: draft.branch,
          ...(draft.baseRef.trim() === "" ? {} : { baseRef: draft.baseRef }),
          ...(draft.startFromOrigin ? { startFromOrigin: true } : {})
        }
      }
      : {})
  }
}
