import { memo, useEffect, useMemo, useState } from "react"

/**
 * The renderer (markdown-it, about 40 KB gzipped) is its own chunk, fetched as the app starts but
 * outside the initial JavaScript budget; until it arrives, text shows as it was written.
 */
let render: ((text: string) => string) | undefined
const loaded = import("./markdownRenderer").then((module) => {
  render = module.renderMarkdown
})

/** An agent's text as Markdown (web/src/thread/markdownRenderer.ts says what is kept inert). */
export const Markdown = memo(({ text }: { readonly text: string }) => {
  const [ready, setReady] = useState(render !== undefined)
  useEffect(() => {
    if (!ready) void loaded.then(() => setReady(true), () => undefined)
  }, [ready])
  const html = useMemo(() => (ready && render !== undefined ? render(text) : undefined), [text, ready])
  return html === undefined
    ? <div className="text">{text}</div>
    : <div className="text markdown" dangerouslySetInnerHTML={{ __html: html }} />
})
