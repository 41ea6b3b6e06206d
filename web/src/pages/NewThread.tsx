import { useState } from "react"
import { describeError, useTool } from "../lib/api"
import { NewThreadForm } from "../newthread/NewThreadForm"
import { followLink, machinesPath } from "../lib/router"
import { useReloadOnChange } from "../lib/projectChanges"

/** New thread (`create_thread`), optionally spawned beside the thread the link names (`?spawnFrom=`). */
export const NewThreadPage = ({ projectId }: { readonly projectId: string }) => {
  const [spawnFrom] = useState(() => new URLSearchParams(window.location.search).get("spawnFrom") ?? "")
  // Machines come and go online while the form is open.
  const [profiles, reloadProfiles] = useTool("list_cli_profiles", { projectId })
  useReloadOnChange(reloadProfiles, { machines: true })
  const [agents] = useTool("list_project_agents", { projectId })

  return (
    <section aria-labelledby="new-thread-heading">
      <div className="page-head">
        <h1 id="new-thread-heading">New thread</h1>
      </div>
      {profiles._tag === "Loading" ? <p className="page-status" role="status">Loading your machines…</p> : null}
      {profiles._tag === "Failed"
        ? <p className="page-status" role="alert">Cannot load your machines: {describeError(profiles.error)}</p>
        : null}
      {profiles._tag === "Ready" && profiles.value.profiles.length === 0 ?
        (
          <p className="page-status">
            A thread runs on one of your machines, and none serves this project yet.{" "}
            <a href={machinesPath(projectId)} onClick={followLink}>Connect a machine</a>, then come back.
          </p>
        ) :
        null}
      {profiles._tag === "Ready" && profiles.value.profiles.length > 0 ?
        (
          <>
            {agents._tag === "Failed"
              ? <p className="hint" role="alert">Cannot load the project agents: {describeError(agents.error)}</p>
              : null}
            <NewThreadForm
              projectId={projectId}
              profiles={profiles.value.profiles}
              agents={agents._tag === "Ready" ? agents.value.agents : []}
              spawnFrom={spawnFrom}
            />
          </>
        ) :
        null}
    </section>
  )
}
