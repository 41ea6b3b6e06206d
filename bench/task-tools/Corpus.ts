/**
 * The generated project the benchmark seeds: labels, top-level tasks with Markdown descriptions,
 * subtasks, the Sprint List's members, and a two-word search query that matches a few dozen
 * tasks. Deterministic (a fixed PRNG seed), so every run searches the same data the same way.
 */
import type { LabelColor } from "../../catalog/domain/Label.js"
import type { Priority } from "../../catalog/domain/Task.js"

export interface TaskSpec {
  readonly name: string
  readonly description: string
  readonly label: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly priority: Priority
  readonly taskTypeKey: "task" | "bug" | "feature" | "chore"
}

export interface SubtaskSpec extends TaskSpec {
  /** Index into `topLevel` of the parent. */
  readonly parentIndex: number
}

export interface Corpus {
  readonly labels: ReadonlyArray<{ readonly name: string; readonly color: LabelColor }>
  readonly topLevel: ReadonlyArray<TaskSpec>
  readonly subtasks: ReadonlyArray<SubtaskSpec>
  /** Indexes into `topLevel` of the tasks created in the Sprint List. */
  readonly sprint: ReadonlySet<number>
  /** Two vocabulary words; `expectedMatches` tasks contain both (names and descriptions). */
  readonly query: { readonly text: string; readonly expectedMatches: number }
}

export const SPRINT_SIZE = 20
/** One task in five is top-level; the rest are spread evenly over them as subtasks. */
const TOP_LEVEL_SHARE = 0.2
const VOCABULARY_SIZE = 400
/** "A few dozen" matches for the two-word query (the nearest a pair of words gets). */
const QUERY_MATCHES = 40
/** Each query word occurs in at least this share of the tasks. */
const QUERY_WORD_SHARE = 0.03

const LABELS: Corpus["labels"] = [
  { name: "backend", color: "amber" },
  { name: "frontend", color: "lime" },
  { name: "infra", color: "emerald" },
  { name: "docs", color: "cyan" },
  { name: "security", color: "sky" },
  { name: "performance", color: "violet" },
  { name: "design", color: "fuchsia" },
  { name: "data", color: "rose" },
  { name: "mobile", color: "brown" },
  { name: "api", color: "slate" }
]

const TAGS = ["customer", "tech-debt", "q3", "regression", "onboarding"]
const PRIORITIES: ReadonlyArray<Priority> = ["None", "Low", "Medium", "High", "Critical"]
const TYPES: ReadonlyArray<TaskSpec["taskTypeKey"]> = ["task", "bug", "feature", "chore"]
const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ra",
  "te",
  "su",
  "vo",
  "ne",
  "pi",
  "da",
  "ro",
  "li",
  "ba",
  "fe",
  "go",
  "hu",
  "ja",
  "ku",
  "ma",
  "no",
  "pe",
  "sa",
  "ti",
  "zu"
]

/** mulberry32: small, fast, and good enough to make varied text reproducibly. */
const prng = (seed: number) => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

type Random = ReturnType<typeof prng>

const pick = <A>(random: Random, items: ReadonlyArray<A>): A => {
  const item = items[Math.floor(random() * items.length)]
  if (item === undefined) throw new Error("pick from an empty list")
  return item
}

const between = (random: Random, low: number, high: number): number => low + Math.floor(random() * (high - low + 1))

const makeVocabulary = (random: Random): ReadonlyArray<string> => {
  const words = new Set<string>()
  while (words.size < VOCABULARY_SIZE) {
    words.add(Array.from({ length: between(random, 2, 3) }, () => pick(random, SYLLABLES)).join(""))
  }
  return [...words]
}

const capitalize = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1)

/**
 * Writes text from the vocabulary with a skewed word frequency (a few words are common, most
 * are rare, as in real text), remembering which words each task used.
 */
class Writer {
  constructor(private readonly random: Random, private readonly vocabulary: ReadonlyArray<string>, private readonly used: Set<number>) {}

  word(): string {
    const index = Math.floor(this.vocabulary.length * this.random() ** 2)
    this.used.add(index)
    return this.vocabulary[index] ?? "word"
  }

  words(low: number, high: number): string {
    return Array.from({ length: between(this.random, low, high) }, () => this.word()).join(" ")
  }

  sentence(): string {
    return `${capitalize(this.words(6, 12))}.`
  }
}

// Inline code holds one word: the text-search parser would read `a.b` as a single host token.
const topLevelDescription = (w: Writer, random: Random): string =>
  [
    `## ${capitalize(w.words(2, 3))}`,
    `${w.sentence()} ${w.sentence()}`,
    Array.from({ length: between(random, 2, 4) }, () => `- ${w.words(3, 6)}`).join("\n"),
    `**Acceptance:** ${w.sentence()} See \`${w.word()}\`.`
  ].join("\n\n")

const subtaskDescription = (w: Writer): string => `${w.sentence()} Check **${w.word()}** first.`

const taskSpec = (w: Writer, random: Random, description: string, labelShare: number): TaskSpec => ({
  name: capitalize(w.words(3, 6)),
  description,
  label: random() < labelShare ? pick(random, LABELS).name : undefined,
  tags: random() < 0.4 ? [pick(random, TAGS)] : [],
  priority: pick(random, PRIORITIES),
  taskTypeKey: pick(random, TYPES)
})

/** Tasks (by index) containing each word, ascending. */
const postings = (usedByTask: ReadonlyArray<ReadonlySet<number>>): Map<number, Array<number>> => {
  const byWord = new Map<number, Array<number>>()
  usedByTask.forEach((words, task) => {
    for (const word of words) {
      const list = byWord.get(word)
      if (list === undefined) byWord.set(word, [task])
      else list.push(task)
    }
  })
  return byWord
}

const intersectionSize = (a: ReadonlyArray<number>, b: ReadonlyArray<number>): number => {
  let i = 0
  let j = 0
  let count = 0
  while (i < a.length && j < b.length) {
    const x = a[i] ?? 0
    const y = b[j] ?? 0
    if (x === y) {
      count++
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return count
}

/**
 * Two words that each occur in many tasks (so the full-text index has real posting lists to
 * intersect) but together in only a few dozen: the usual shape of a two-word search.
 */
const chooseQuery = (vocabulary: ReadonlyArray<string>, usedByTask: ReadonlyArray<ReadonlySet<number>>): Corpus["query"] => {
  const byWord = [...postings(usedByTask).entries()]
    .filter(([, tasks]) => tasks.length >= Math.max(2, Math.ceil(usedByTask.length * QUERY_WORD_SHARE)))
    .sort(([a, ta], [b, tb]) => ta.length - tb.length || a - b)
  let best: { readonly words: readonly [number, number]; readonly matches: number } | undefined
  for (let i = 0; i < byWord.length; i++) {
    for (let j = i + 1; j < byWord.length; j++) {
      const [a, ta] = byWord[i] ?? [0, []]
      const [b, tb] = byWord[j] ?? [0, []]
      const matches = intersectionSize(ta, tb)
      if (best === undefined || Math.abs(matches - QUERY_MATCHES) < Math.abs(best.matches - QUERY_MATCHES)) {
        best = { words: [a, b], matches }
        if (matches === QUERY_MATCHES) return { text: `${vocabulary[a]} ${vocabulary[b]}`, expectedMatches: matches }
      }
    }
  }
  if (best === undefined) throw new Error("the corpus is too small to choose a search query")
  return { text: `${vocabulary[best.words[0]]} ${vocabulary[best.words[1]]}`, expectedMatches: best.matches }
}

export const makeCorpus = (taskCount: number): Corpus => {
  const random = prng(0x7e11)
  const vocabulary = makeVocabulary(random)
  const topLevelCount = Math.max(1, Math.round(taskCount * TOP_LEVEL_SHARE))
  const usedByTask: Array<Set<number>> = []
  const writer = () => {
    const used = new Set<number>()
    usedByTask.push(used)
    return new Writer(random, vocabulary, used)
  }

  const topLevel = Array.from({ length: topLevelCount }, () => {
    const w = writer()
    return taskSpec(w, random, topLevelDescription(w, random), 0.8)
  })
  const subtasks = Array.from({ length: taskCount - topLevelCount }, (_, i): SubtaskSpec => {
    const w = writer()
    return { ...taskSpec(w, random, subtaskDescription(w), 0.5), parentIndex: i % topLevelCount }
  })
  const sprintSize = Math.min(SPRINT_SIZE, topLevelCount)
  const sprint = new Set(Array.from({ length: sprintSize }, (_, i) => Math.floor((i * topLevelCount) / sprintSize)))

  return { labels: LABELS, topLevel, subtasks, sprint, query: chooseQuery(vocabulary, usedByTask) }
}
