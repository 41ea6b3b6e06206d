import type { AvailableCli, CliPath, CliProfile } from "../../../catalog/domain/CliProfile.js"
import { describeError } from "../lib/api"
import { useTool } from "../lib/useTool"
import { pathsInOrder } from "../newthread/draft"
import { followLink, newThreadPath } from "../lib/router"
import { ago } from "../lib/format"
import "./Machines.css"
import { useReloadOnChange } from "../lib/projectChanges"

const Runtime = ({ runtime }: { readonly runtime: AvailableCli }) => (
  <li>
    <span className="runtime-name">{runtime.type}</span>{" "}
    <span className="meta">{runtime.version}{runtime.provider === undefined ? "" : ` · ${runtime.provider}`}</span>
    {runtime.cliModels === undefined || runtime.cliModels.length === 0
      ? <p className="hint">No models listed: threads use the runtime's default unless they name one.</p>
      : (
        <ul className="models" aria-label={`Models of ${runtime.type}`}>
          {runtime.cliModels.map((model) => (
            <li key={model.model}>
              <code>{model.model}</code>
              {model.efforts !== undefined && model.efforts.length > 0
                ? <span className="meta efforts">efforts: {model.efforts.join(", ")}</span>
                : null}
            </li>
          ))}
        </ul>
      )}
  </li>
)

const Path = ({ path }: { readonly path: CliPath }) => (
  <li className={path.kind === "worktree" ? "worktree" : undefined}>
    <span className="path-label">{path.kind === "worktree" ? "Worktree" : path.label === "" ? "Checkout" : path.label}</span>{" "}
    <code>{path.path}</code>
    <span className="row-meta">
      {path.branch !== null ? <span className="meta">branch {path.branch}</span> : null}
      {path.gitRemoteUrl !== null ? <span className="meta">{path.gitRemoteUrl}</span> : null}
    </span>
  </li>
)

const Machine = ({ profile }: { readonly profile: CliProfile }) => {
  const titleId = `machine-${profile.profileId}`
  return (
    <li className="machine">
      <article aria-labelledby={titleId}>
        <div className="machine-head">
          <h2 id={titleId}>{profile.name}</h2>
          <span className={profile.isOnline ? "badge machine-online" : "badge"}>
            <span className={profile.isOnline ? "dot online" : "dot"} aria-hidden="true" /> {profile.isOnline ? "Online" : "Offline"}
          </span>
        </div>
        <div className="row-meta">
          <span className="meta">{profile.hostname}</span>
          <span className="meta">trellis {profile.appVersion}</span>
          <span className="meta">
            {profile.lastConnectedAt === null
              ? "never connected"
              : (
                <>
                  last connected{" "}
                  <time dateTime={profile.lastConnectedAt} title={profile.lastConnectedAt}>{ago(profile.lastConnectedAt)}</time>
                </>
              )}
          </span>
        </div>
        {profile.isOnline ? null : (
          <p className="hint">
            Offline: threads sent here are queued and start when <code>trellis agent start</code> runs on it.
          </p>
        )}
        <h3>Runtimes</h3>
        {profile.availableClis.length === 0
          ? (
            <p className="hint">
              None reported yet: the machine reports its runtimes when <code>trellis agent start</code> runs.
            </p>
          )
          : (
            <ul className="plain" aria-label={`Runtimes of ${profile.name}`}>
              {profile.availableClis.map((runtime) => <Runtime key={runtime.type} runtime={runtime} />)}
            </ul>
          )}
        <h3>Paths</h3>
        {profile.paths.length === 0
          ? (
            <p className="hint">
              No checkout registered: run <code>trellis agent paths add</code> in a repository on this machine.
            </p>
          )
          : (
            <ul className="plain" aria-label={`Paths of ${profile.name}`}>
              {pathsInOrder(profile.paths).map((path) => <Path key={path.pathId} path={path} />)}
            </ul>
          )}
      </article>
    </li>
  )
}

/** How to connect a first machine (docs/agents.md §2–3), with this server and project filled in. */
const Connect = ({ projectId }: { readonly projectId: string }) => (
  <div className="connect">
    <p>
      No machine serves this project yet. Threads run on your own machines through{" "}
      <code>trellis agent</code>: on the computer that has your checkout and a coding agent (Claude Code, Codex or OpenCode), run
    </p>
    <pre><code>{`trellis agent login --server ${window.location.origin} --project ${projectId} --api-key trellis_…
cd ~/src/your-repo && trellis agent paths add
trellis agent start`}</code></pre>
    <p className="hint">
      The API key can also come from <code>TRELLIS_API_KEY</code>. The machine appears here once it is logged in, and is online while{" "}
      <code>trellis agent start</code> runs.
    </p>
  </div>
)

/**
 * The person's machines for the project (`list_cli_profiles`): online or not, what they run and
 * where; read again when the changes stream says one connected, disconnected or went silent.
 */
export const MachinesPage = ({ projectId }: { readonly projectId: string }) => {
  const [profiles, reload] = useTool("list_cli_profiles", { projectId })
  useReloadOnChange(reload, { machines: true })
  return (
    <section aria-labelledby="machines-title" className="machines">
      <div className="page-head">
        <h1 id="machines-title">Machines</h1>
        <a href={newThreadPath(projectId)} onClick={followLink}>New thread</a>
        <button type="button" className="quiet" onClick={reload}>Refresh</button>
      </div>
      {profiles._tag === "Loading" ? <p className="page-status" role="status">Loading your machines…</p> : null}
      {profiles._tag === "Failed"
        ? <p className="page-status" role="alert">Cannot load your machines: {describeError(profiles.error)}</p>
        : null}
      {profiles._tag === "Ready" && profiles.value.profiles.length === 0 ? <Connect projectId={projectId} /> : null}
      {profiles._tag === "Ready" && profiles.value.profiles.length > 0 ?
        (
          <ul className="machine-list" aria-label="Machines">
            {profiles.value.profiles.map((profile) => <Machine key={profile.profileId} profile={profile} />)}
          </ul>
        ) :
        null}
    </section>
  )
}
