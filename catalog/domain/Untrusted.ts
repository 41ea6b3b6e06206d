const MAX_UNTRUSTED_LENGTH = 300

/**
 * Author-written text (Skill, agent and prompt descriptions) as the server puts it in front of a
 * model: one line, cut to a bounded length, and labelled as untrusted, so that a description
 * cannot pass for the server's own instructions or forge structure (headings, list items) around
 * it.
 */
export const untrustedLine = (text: string): string => {
  const flat = text.replace(/\s+/gu, " ").trim()
  const cut = flat.length > MAX_UNTRUSTED_LENGTH ? `${flat.slice(0, MAX_UNTRUSTED_LENGTH - 1)}…` : flat
  return `[untrusted author-written text] ${cut === "" ? "(empty)" : cut}`
}
