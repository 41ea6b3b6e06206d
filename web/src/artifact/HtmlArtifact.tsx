import { useMemo } from "react"

/**
 * An HTML artifact as its frame gets it. The frame's sandbox (no token) runs no script or event
 * handler, submits no form, opens no window and gives the document an origin of its own; the
 * policy put first in it loads nothing from anywhere (inline styles and `data:` images excepted);
 * every link and form aims at a new window (`<base target="_blank">`, the author's own targets
 * and bases removed), which the sandbox refuses, so nothing navigates the frame away. Parsed in
 * an inert document (DOMParser runs nothing).
 */
const locked = (content: string): string => {
  const document = new DOMParser().parseFromString(content, "text/html")
  for (const element of document.querySelectorAll("base, meta[http-equiv]")) element.remove()
  for (const element of document.querySelectorAll("[target], [formtarget]")) {
    element.removeAttribute("target")
    element.removeAttribute("formtarget")
  }
  const policy = document.createElement("meta")
  policy.httpEquiv = "Content-Security-Policy"
  policy.content = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
  const base = document.createElement("base")
  base.target = "_blank"
  document.head.prepend(policy, base)
  return `<!doctype html>${document.documentElement.outerHTML}`
}

/** An HTML artifact, read-only, in a frame that runs no script and reaches nothing (SPEC: "html renders read-only"). */
export const HtmlArtifact = ({ content, name }: { readonly content: string; readonly name: string }) => {
  const document = useMemo(() => locked(content), [content])
  return <iframe className="artifact-frame" title={name} sandbox="" referrerPolicy="no-referrer" srcDoc={document} />
}
