import { Either } from "effect"
import { type DragEvent, useRef, useState } from "react"
import type { TaskToolResult } from "../board/taskTools"
import { useQueryClient } from "@tanstack/react-query"
import { ago } from "../lib/format"
import { removeFile, uploadFile } from "./fileRoutes"

type Details = TaskToolResult<"get_task">

/** An upload on its way (`sent` 0–1), or refused with the server's message. */
interface Upload {
  readonly key: number
  readonly name: string
  readonly sent: number
  readonly error?: string
}

export const formatSize = (bytes: number): string =>
  bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`

let uploadKeys = 0

/**
 * The task's files: each a download link with its size, uploader and time; attached with the
 * picker button or by dropping files on the section, each upload showing its progress, a refusal
 * its message (too big: the server names the cap). Another page sees them through the changes stream.
 */
export const TaskFiles = ({ task }: { readonly task: Details }) => {
  const client = useQueryClient()
  const picker = useRef<HTMLInputElement>(null)
  const [uploads, setUploads] = useState<ReadonlyArray<Upload>>([])
  const [dropping, setDropping] = useState(false)
  const [removeError, setRemoveError] = useState<string | undefined>(undefined)
  const refresh = () => void client.invalidateQueries({ queryKey: ["get_task"] })
  const change = (key: number, update: (upload: Upload) => Upload | undefined) =>
    setUploads((current) => current.flatMap((upload) => upload.key === key ? (update(upload) ?? []) : [upload]))

  const attach = (files: ReadonlyArray<File>) => {
    for (const file of files) {
      const key = ++uploadKeys
      setUploads((current) => [...current, { key, name: file.name, sent: 0 }])
      void uploadFile(task.taskId, file, (sent) => change(key, (upload) => ({ ...upload, sent }))).then((result) => {
        if (Either.isRight(result)) {
          change(key, () => undefined)
          refresh()
        } else {
          change(key, (upload) => ({ ...upload, error: result.left }))
        }
      })
    }
  }

  const drop = (event: DragEvent) => {
    event.preventDefault()
    setDropping(false)
    attach([...event.dataTransfer.files])
  }
  const over = (event: DragEvent) => {
    if (!event.dataTransfer.types.includes("Files")) return
    event.preventDefault()
    setDropping(true)
  }

  const remove = (fileId: string) => {
    setRemoveError(undefined)
    void removeFile(task.taskId, fileId).then((error) => {
      if (error !== undefined) setRemoveError(error)
      refresh()
    })
  }

  return (
    <section
      className={`task-section task-files${dropping ? " dropping" : ""}`}
      aria-labelledby="task-files"
      onDragOver={over}
      onDragEnter={over}
      onDragLeave={() => setDropping(false)}
      onDrop={drop}
    >
      <h2 id="task-files">
        Files <span className="meta">{task.files.length}</span>
      </h2>
      {task.files.length === 0 && uploads.length === 0 ? <p className="meta">No files yet.</p> : null}
      <ul className="task-rows">
        {task.files.map((file) => (
          <li key={file.fileId} className="task-file">
            <a href={file.downloadUrl} download={file.name}>{file.name}</a>
            <span className="meta">{` · ${formatSize(file.size)} · ${file.uploadedBy.name} · ${ago(file.createdAt)}`}</span>
            <button type="button" className="quiet" aria-label={`Remove ${file.name}`} onClick={() => remove(file.fileId)}>
              Remove
            </button>
          </li>
        ))}
        {uploads.map((upload) => (
          <li key={upload.key} className="task-file">
            <span>{upload.name}</span>
            {upload.error === undefined
              ? <progress max={1} value={upload.sent} aria-label={`Uploading ${upload.name}`} />
              : (
                <>
                  <span className="field-error" role="alert">Not attached: {upload.error}</span>
                  <button type="button" className="quiet" onClick={() => change(upload.key, () => undefined)}>Dismiss</button>
                </>
              )}
          </li>
        ))}
      </ul>
      {removeError === undefined ? null : <p className="field-error" role="alert">Not removed: {removeError}</p>}
      <div className="file-drop">
        <button type="button" onClick={() => picker.current?.click()}>Attach files…</button>
        <span className="meta">or drop them here</span>
        <input
          ref={picker}
          type="file"
          multiple
          hidden
          aria-label="Files to attach"
          onChange={(event) => {
            attach([...(event.currentTarget.files ?? [])])
            event.currentTarget.value = ""
          }}
        />
      </div>
    </section>
  )
}
