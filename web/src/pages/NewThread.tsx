import { lazy, Suspense, useState } from "react"
import { describeError } from "../lib/api"
import { useTool } from "../lib/useTool"
import { NewThreadForm } from "../newthread/NewThreadForm"
import { followLink, machinesPath } from "../lib/router"
import { useReloadOnChange } from "../lib/projectChanges"

const DelegationForm = lazy(() => import("../newthread/DelegationForm").then((module) => ({ default: module.DelegationForm })))

/**
 * New thread (`create_thread`), optionally spawned beside the thread the link names (`?spawnFrom=`),
 * or the one a delegation offers (`?task=&agent=`), prefilled from the agent's automation.
 */
export const NewThreadPage = ({ projectId }: { readonly projectId: string }) => {
  const [query] = useState(() => new URLSearchParams(window.location.search))
  const spawnFrom = query.get("spawnFrom") ?? ""
  const delegation = { taskRef: query.get("task") ?? "", agentId: query.get("agent") ?? "" }
  const delegated = delegation.taskRef !== "" && delegation.agentId !== ""
  // Machines come and go online while the form is open.
  const [profiles, reloadProfiles] = useTool("list_cli_profiles", { projectId })
  useReloadOnChange(reloadProfiles, { machines: true })
  const [agents] = useTool("list_project_agents", { projectId })

  return (
    <section aria-labelledby="new-thread-heading">
      <div className="page-head">
        <h1 id="new-thread-heading">{delegated ? `New thread for ${delegation.taskRef}` : "New thread"}</h1>
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
            {delegated
              ? agents._tag === "Ready"
                ? (
                  <Suspense fallback={<p className="page-status" role="status">Loading…</p>}>
                    <DelegationForm
                      projectId={projectId}
                      profiles={profiles.value.profiles}
                      agents={agents.value.agents}
                      {...delegation}
                    />
                  </Suspense>
                )
                : null
              : (
                <NewThreadForm
                  projectId={projectId}
                  profiles={profiles.value.profiles}
                  agents={agents._tag === "Ready" ? agents.value.agents : []}
                  spawnFrom={spawnFrom}
                />
              )}
          </>
        ) :
        null}
    </section>
  )
}
