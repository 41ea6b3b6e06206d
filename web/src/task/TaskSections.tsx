import { type FormEvent, useState } from "react"
import { describeError } from "../lib/api"
import { ago } from "../lib/format"
import { artifactPath, followLink, taskPath } from "../lib/router"
import { type TaskToolResult, useToolMutation } from "../board/taskTools"
import { Markdown } from "../thread/Markdown"
import { MoveTask } from "./MoveTask"

type Details = TaskToolResult<"get_task">
type ExternalLink = Details["externalLinks"][number]

/** Direct subtasks in rank order, each opening its page, a form to add one, and the task's own parent and moving it. */
export const Subtasks = ({ projectId, task }: { readonly projectId: string; readonly task: Details }) => {
  const [name, setName] = useState("")
  const create = useToolMutation("create_task")
  const add = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ projectId, name, parentId: task.taskId }, {
      onSuccess: () => setName(""),
      onSettled: () => create.client.invalidateQueries({ queryKey: ["get_task"] })
    })
  }
  return (
    <section className="task-section" aria-labelledby="task-subtasks">
      <h2 id="task-subtasks">
        Subtasks <span className="meta">{task.subtasks.length}</span>
      </h2>
      <ul className="task-rows">
        {task.subtasks.map((subtask) => (
          <li key={subtask.taskId}>
            <a href={taskPath(projectId, subtask.refId)} onClick={followLink}>{subtask.refId}</a> {subtask.name}
            <span className="meta">{` · ${subtask.status}${subtask.subtaskCount > 0 ? ` · ${subtask.subtaskCount} sub` : ""}`}</span>
          </li>
        ))}
      </ul>
      <form className="inline-form" onSubmit={add}>
        <label className="visually-hidden" htmlFor="new-subtask">New subtask's name</label>
        <input
          id="new-subtask"
          type="text"
          value={name}
          placeholder="New subtask"
          onChange={(event) => setName(event.currentTarget.value)}
        />
        <button type="submit" disabled={create.isPending || name.trim() === ""}>Add subtask</button>
      </form>
      {create.isError ? <p className="field-error" role="alert">{describeError(create.error)}</p> : null}
      <MoveTask projectId={projectId} task={task} />
    </section>
  )
}

const linkText = (link: ExternalLink): string => {
  switch (link.kind) {
    case "commit":
      return link.title ?? link.sha.slice(0, 12)
    case "branch":
      return link.name
    case "pull_request":
      return link.title ?? link.identifier ?? link.url
    case "url":
      return link.title ?? link.url
  }
}

const linkUrl = (link: ExternalLink): string | undefined => link.url

/** External links by kind (commits, branches, pull requests, URLs) and the task's document artifacts. */
export const LinksAndArtifacts = ({ projectId, task }: { readonly projectId: string; readonly task: Details }) => {
  const kinds = [...new Set(task.externalLinks.map((link) => link.kind))]
  return (
    <section className="task-section" aria-labelledby="task-links">
      <h2 id="task-links">Links and artifacts</h2>
      {task.externalLinks.length === 0 && task.artifacts.length === 0 ? <p className="meta">None yet.</p> : null}
      {kinds.map((kind) => (
        <div key={kind}>
          <h3>{kind.replace("_", " ")}</h3>
          <ul className="task-rows">
            {task.externalLinks.filter((link) => link.kind === kind).map((link) => {
              const url = linkUrl(link)
              return (
                <li key={link.id}>
                  {url === undefined ? linkText(link) : <a href={url} rel="noreferrer noopener" target="_blank">{linkText(link)}</a>}
                </li>
              )
            })}
          </ul>
        </div>
      ))}
      {task.artifacts.length === 0 ? null : (
        <>
          <h3>Artifacts</h3>
          <ul className="task-rows">
            {task.artifacts.map((artifact) => (
              <li key={artifact.artifactId}>
                <a href={artifactPath(projectId, artifact.artifactId)} onClick={followLink}>{artifact.name}</a>{" "}
                <span className="meta">· {artifact.contentType} · {artifact.openCommentCount} open · {ago(artifact.updatedAt)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  )
}

/** The latest comments (Markdown), oldest first, and a form to add one. */
export const Comments = ({ projectId, task }: { readonly projectId: string; readonly task: Details }) => {
  const [content, setContent] = useState("")
  const create = useToolMutation("create_task_comment")
  const add = (event: FormEvent) => {
    event.preventDefault()
    create.mutate({ projectId, taskId: task.taskId, content }, {
      onSuccess: () => setContent(""),
      onSettled: () => create.client.invalidateQueries({ queryKey: ["get_task"] })
    })
  }
  return (
    <section className="task-section" aria-labelledby="task-comments">
      <h2 id="task-comments">
        Comments <span className="meta">{task.comments.length}</span>
      </h2>
      <ol className="task-comments">
        {task.comments.map((comment) => (
          <li key={comment.commentId}>
            <div className="meta">{comment.authorName} · {ago(comment.createdAt)}</div>
            <Markdown text={comment.content} />
          </li>
        ))}
      </ol>
      <form onSubmit={add}>
        <label className="visually-hidden" htmlFor="new-comment">Comment (Markdown)</label>
        <textarea
          id="new-comment"
          rows={3}
          value={content}
          placeholder="Comment (Markdown)"
          onChange={(event) => setContent(event.currentTarget.value)}
        />
        <div className="form-actions">
          <button type="submit" disabled={create.isPending || content.trim() === ""}>Comment</button>
        </div>
      </form>
      {create.isError ? <p className="field-error" role="alert">{describeError(create.error)}</p> : null}
    </section>
  )
}
