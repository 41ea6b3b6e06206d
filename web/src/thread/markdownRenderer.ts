import MarkdownIt from "markdown-it"

/**
 * Markdown to HTML for an agent's text. Raw HTML in it stays text (`html: false`), and markdown-it
 * refuses `javascript:`-like link targets, so what a model writes cannot run in the page; links open apart.
 */
const markdown = new MarkdownIt({ html: false, linkify: true })

const defaultLinkOpen = markdown.renderer.rules["link_open"]
markdown.renderer.rules["link_open"] = (tokens, index, options, env, self) => {
  const token = tokens[index]
  token?.attrSet("target", "_blank")
  token?.attrSet("rel", "noopener noreferrer")
  return defaultLinkOpen === undefined ? self.renderToken(tokens, index, options) : defaultLinkOpen(tokens, index, options, env, self)
}

export const renderMarkdown = (text: string): string => markdown.render(text)
