/*
 * Reads the field names SPEC gives its records ("Resources and their fields") out of a copy of
 * those lines. SPEC writes them as prose, so the forms it uses are read by rule:
 *
 * - `Fields: a, b (a note), c`, `Thread fields: …`, `… has instead: …` — a list, up to the end
 *   of the sentence or a `;`. `Fields returned by \`tool\`:` also names the tool.
 * - `c \`{ x, y? }\``, `c \`[{ x }]\`` — c is an object (or a list of objects) with fields x, y.
 * - `c (x, y)` — subfields, when every item is a bare name and one is camelCase; any other
 *   parenthesis is a note (`name (title)`, `enabled (boolean, required)`, `role (\`user\` …)`).
 *   A note may give a subfield's shape: `(cliModels is \`{ model, efforts? }[]\`)`.
 * - `two words (x, y)` groups fields (`queue state (…)`): x and y sit beside the others;
 *   `two words \`{ x }\`` names field `two` (`automation config \`{ … }\`` is `automation`).
 * - A sentence that is only `\`{ a, b }\`` lists the record's fields.
 * - A sentence saying something `carry`/`has a` lists the backticked names in it.
 * - A table whose first column is `Field` lists those fields; any other table has one list per
 *   row, its first cell selecting the variant (`kind` `commit`: sha, title, …).
 *
 * An item none of these rules reads is reported in `unread`, so a new phrasing fails loudly
 * instead of dropping a field.
 */

export interface SpecField {
  readonly name: string
  readonly fields: ReadonlyArray<SpecField>
}

export interface FieldList {
  /** What introduces the list in SPEC ("Fields", "Ordinary thread fields", "kind commit"…). */
  readonly intro: string
  /** The tool SPEC says returns these fields, when it names one. */
  readonly tool: string | undefined
  /** The variant a table row describes: its first column's header and value. */
  readonly variant: { readonly field: string; readonly value: string } | undefined
  readonly fields: ReadonlyArray<SpecField>
}

export interface SpecRecord {
  readonly title: string
  readonly lists: ReadonlyArray<FieldList>
  /** Every backticked name and camelCase word of the record's lines. */
  readonly mentions: ReadonlyArray<string>
  /** Items no rule could read. */
  readonly unread: ReadonlyArray<string>
}

const OPEN = "([{"
const CLOSE = ")]}"

/** Splits at the separators `at` accepts outside brackets and backticks. */
const splitTop = (text: string, at: (char: string, index: number) => boolean): ReadonlyArray<string> => {
  const parts: Array<string> = []
  let depth = 0
  let quoted = false
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i)
    if (char === "`") quoted = !quoted
    else if (!quoted && OPEN.includes(char)) depth++
    else if (!quoted && CLOSE.includes(char)) depth--
    else if (!quoted && depth === 0 && at(char, i)) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts.map((part) => part.trim()).filter((part) => part !== "")
}

const sentences = (text: string) => splitTop(text, (char, i) => char === "." && (i === text.length - 1 || /\s/.test(text.charAt(i + 1))))
const items = (text: string) => splitTop(text, (char) => char === ",").map((item) => item.replace(/^(?:and|or) /, ""))

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const isCamel = (word: string) => /^[a-z]+[A-Z]/.test(word)

/** The groups after a field's name: `{…}`/`[{…}]` shapes (backticked or not) and `(…)` notes, in order. */
const groups = (rest: string): ReadonlyArray<{ readonly kind: "shape" | "paren"; readonly text: string }> => {
  const found: Array<{ kind: "shape" | "paren"; text: string }> = []
  for (let i = 0; i < rest.length; i++) {
    const char = rest.charAt(i)
    if (char === "`") {
      const end = rest.indexOf("`", i + 1)
      if (end === -1) break
      const inner = rest.slice(i + 1, end).trim()
      if (/^[[{]/.test(inner)) found.push({ kind: "shape", text: inner })
      i = end
    } else if (OPEN.includes(char)) {
      let depth = 0
      let j = i
      for (; j < rest.length; j++) {
        if (OPEN.includes(rest.charAt(j))) depth++
        else if (CLOSE.includes(rest.charAt(j)) && --depth === 0) break
      }
      const text = rest.slice(i, j + 1)
      found.push(char === "(" ? { kind: "paren", text: text.slice(1, -1) } : { kind: "shape", text })
      i = j
    }
  }
  return found
}

interface Read {
  readonly fields: ReadonlyArray<SpecField>
  readonly unread: ReadonlyArray<string>
}

const shapeFields = (shape: string): Read => {
  const body = /^\[?\s*\{(.*)\}\s*\]?(?:\[\])?$/s.exec(shape.trim())
  return body === null ? { fields: [], unread: [shape] } : readItems(body[1] ?? "")
}

/** A parenthesis that lists subfields rather than commenting. */
const subfieldsOf = (paren: string): ReadonlyArray<string> | undefined => {
  const names = items(paren)
  return names.length > 0 && names.every((name) => NAME.test(name)) && names.some(isCamel) ? names : undefined
}

/** `(x is \`{ … }\`)` in a note: the shape of subfield x. */
const shapesInNote = (note: string): ReadonlyMap<string, string> =>
  new Map([...note.matchAll(/`?(\w+)`? is `([^`]*)`/g)].filter((m) => /^[[{]/.test(m[2] ?? "")).map((m) => [m[1] ?? "", m[2] ?? ""]))

const named = (name: string, inner: Read): Read => ({ fields: [{ name, fields: inner.fields }], unread: inner.unread })

const readItem = (item: string): Read => {
  const split = /^([^`([{]*)(.*)$/s.exec(item)
  const words = (split?.[1] ?? "").trim().split(/\s+/).filter((word) => word !== "")
  const parts = groups(split?.[2] ?? "")
  const shape = parts.find((part) => part.kind === "shape")
  const parens = parts.filter((part) => part.kind === "paren")
  const listed = parens.map((paren) => subfieldsOf(paren.text)).find((names) => names !== undefined)
  if (words.length > 1) {
    if (shape !== undefined) return named(words[0] ?? "", shapeFields(shape.text))
    if (listed !== undefined) return { fields: listed.map((name) => ({ name, fields: [] })), unread: [] }
    return { fields: [], unread: [item] }
  }
  const name = (words[0] ?? "").replace(/\?$/, "")
  if (!NAME.test(name)) return { fields: [], unread: [item] }
  const inner = shape !== undefined
    ? shapeFields(shape.text)
    : { fields: (listed ?? []).map((sub) => ({ name: sub, fields: [] })), unread: [] }
  const noted = new Map(parens.flatMap((paren) => [...shapesInNote(paren.text)]))
  const fields = inner.fields.map((field) => {
    const noteShape = noted.get(field.name)
    return noteShape === undefined ? field : { name: field.name, fields: shapeFields(noteShape).fields }
  })
  return { fields: [{ name, fields }], unread: inner.unread }
}

const readItems = (text: string): Read => {
  const read = items(text).map(readItem)
  return { fields: read.flatMap((r) => r.fields), unread: read.flatMap((r) => r.unread) }
}

const cells = (row: string) => row.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim())

interface Paragraph {
  readonly kind: "text" | "table"
  readonly lines: ReadonlyArray<string>
}

const paragraphs = (lines: ReadonlyArray<string>): ReadonlyArray<Paragraph> => {
  const found: Array<{ kind: "text" | "table"; lines: Array<string> }> = []
  for (const line of lines) {
    if (line.trim() === "") continue
    const kind = line.trimStart().startsWith("|") ? "table" : "text"
    const last = found.at(-1)
    if (last !== undefined && last.kind === kind) last.lines.push(line)
    else found.push({ kind, lines: [line] })
  }
  return found
}

const INTRO = /^(.*?(?:[Ff]ields[^:]*|has instead)):\s*(.*)$/s

const readRecord = (title: string, lines: ReadonlyArray<string>): SpecRecord => {
  const lists: Array<FieldList> = []
  const unread: Array<string> = []
  const add = (intro: string, read: Read, extra: Partial<Pick<FieldList, "tool" | "variant">> = {}) => {
    lists.push({ intro, tool: extra.tool, variant: extra.variant, fields: read.fields })
    unread.push(...read.unread)
  }
  let pendingIntro: string | undefined
  for (const paragraph of paragraphs(lines)) {
    if (paragraph.kind === "table") {
      const [header = [], , ...rows] = paragraph.lines.map(cells)
      if (header[0] === "Field") add(pendingIntro ?? "Fields", readItems(rows.map((row) => row[0] ?? "").join(", ")))
      else {
        for (const row of rows) {
          const field = header[0] ?? ""
          const value = row[0] ?? ""
          add(`${field} ${value}`, readItems(row.slice(1).filter((cell) => cell !== "").join(", ")), { variant: { field, value } })
        }
      }
      pendingIntro = undefined
      continue
    }
    for (const sentence of sentences(paragraph.lines.join(" "))) {
      const intro = INTRO.exec(sentence)
      if (intro !== null) {
        const introText = (intro[1] ?? "").split(/[.)]\s+/).at(-1) ?? ""
        const list = splitTop(intro[2] ?? "", (char) => char === ";")[0]
        if (list === undefined) pendingIntro = introText
        else add(introText, readItems(list), { tool: /`(\w+)`/.exec(introText)?.[1] })
      } else if (/^`\{.*\}`$/.test(sentence)) {
        add("record", shapeFields(sentence.slice(1, -1)))
      } else if (/\b(?:carry|carries|has a)\b/.test(sentence)) {
        const names = [...sentence.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "").filter((name) => NAME.test(name))
        if (names.length > 0) add(sentence, { fields: names.map((name) => ({ name, fields: [] })), unread: [] })
      }
    }
  }
  const text = lines.join("\n")
  const backticked = [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1] ?? "").filter((name) => NAME.test(name))
  const camel = [...text.replace(/`[^`]*`/g, "").matchAll(/\b[a-z]+[A-Z][A-Za-z0-9]*\b/g)].map((m) => m[0])
  return { title, lists, mentions: [...new Set([...backticked, ...camel])], unread }
}

/** The records of the copied "Resources and their fields" lines, by their `###` heading. */
export const parseSpecRecords = (markdown: string): ReadonlyArray<SpecRecord> => {
  const records: Array<SpecRecord> = []
  const withoutComments = markdown.replace(/<!--.*?-->/gs, "")
  for (const section of withoutComments.split(/^### /m).slice(1)) {
    const [heading = "", ...lines] = section.split("\n")
    records.push(readRecord(heading.replace(/\s*\(.*\)$/, "").trim(), lines))
  }
  return records
}
