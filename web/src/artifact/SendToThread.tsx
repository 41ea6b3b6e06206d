import { type FormEvent, useState } from "react"
import { describeError } from "../lib/api"
import { followLink, threadPath } from "../lib/router"
import { type Artifact, useToolMutation, useToolQuery } from "./artifactTools"

/**
 * "Send open threads to an agent": the person's threads in the project (the 50 latest, done ones
 * included; a group counts as one), the one that wrote the artifact (its runId) or a run of its task
 * first; the open threads go to the chosen one as one message (`send_artifact_comments`).
 */
export const SendToThread = ({ artifact, openCount, projectId }: {
  readonly projectId: string
  readonly artifact: Artifact
  readonly openCount: number
}) => {
  const threads = useToolQuery("list_threads", { projectId, includeDone: true, limit: 50 })
  const send = useToolMutation("send_artifact_comments")
  const [picked, setPicked] = useState<string | undefined>(undefined)
  const ordinary = (threads.data?.threads ?? []).filter((thread) => thread.kind === "thread")
  const ranked = [
    ...ordinary.filter((thread) => thread.threadId === artifact.runId),
    ...ordinary.filter((thread) => thread.threadId !== artifact.runId && thread.associatedTaskId === artifact.taskId),
    ...ordinary.filter((thread) => thread.threadId !== artifact.runId && thread.associatedTaskId !== artifact.taskId)
  ]
  const threadId = picked ?? ranked[0]?.threadId
  const sentTo = send.data === undefined ? undefined : ordinary.find((thread) => thread.threadId === send.data.threadId)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (threadId !== undefined) send.mutate({ artifactId: artifact.artifactId, threadId })
  }

  return (
    <form className="send-to-thread" aria-label="Send open threads to an agent" onSubmit={submit}>
      <h2>Send to an agent</h2>
      {ranked.length === 0
        ? <p className="meta">{threads.isPending ? "Loading your threads…" : "You have no active thread in this project."}</p>
        : (
          <>
            <label htmlFor="send-to-thread">Thread</label>
            <select id="send-to-thread" value={threadId} onChange={(event) => setPicked(event.currentTarget.value)}>
              {ranked.map((thread) => <option key={thread.threadId} value={thread.threadId}>{thread.title}</option>)}
            </select>
            <div className="form-actions">
              <button type="submit" disabled={send.isPending || openCount === 0}>
                Send {openCount} open {openCount === 1 ? "thread" : "threads"}
              </button>
            </div>
          </>
        )}
      {send.isError ? <p className="field-error" role="alert">Not sent: {describeError(send.error)}</p> : null}
      {send.data === undefined ? null : (
        <p role="status">
          Sent {send.data.commentIds.length} to{" "}
          <a href={threadPath(projectId, send.data.threadId)} onClick={followLink}>{sentTo?.title ?? "the thread"}</a>.
        </p>
      )}
    </form>
  )
}
