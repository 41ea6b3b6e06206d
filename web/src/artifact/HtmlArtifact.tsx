/**
 * What an HTML artifact may do in its frame: nothing but show itself. The frame's sandbox (no
 * token) runs no script, submits no form, opens no window and gives the document an origin of its
 * own; the policy put first in the document loads nothing from anywhere (inline styles and
 * `data:` images excepted), and links open nowhere.
 */
const LOCKED = "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">" +
  "<base target=\"_blank\">"

/** An HTML artifact, read-only, in a frame that runs no script and reaches nothing (SPEC: "html renders read-only"). */
export const HtmlArtifact = ({ content, name }: { readonly content: string; readonly name: string }) => (
  <iframe className="artifact-frame" title={name} sandbox="" referrerPolicy="no-referrer" srcDoc={`${LOCKED}${content}`} />
)
