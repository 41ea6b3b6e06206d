import { Schema } from "effect"
import { SkillId } from "./domain/Ids.js"
import { ScopeKind } from "./domain/Scope.js"
import {
  MAX_SKILL_BYTES,
  MAX_SKILL_FILE_BYTES,
  MAX_SKILL_FILES,
  SKILL_NAME_PATTERN,
  SKILL_NAME_RULE,
  SKILL_PATH_RULE,
  skillPathProblem
} from "./domain/Skill.js"
import { ScopeFields } from "./ScopeArguments.js"
import * as Tool from "./Tool.js"

const SkillName = Schema.String.pipe(
  Schema.pattern(SKILL_NAME_PATTERN, { message: () => `must be ${SKILL_NAME_RULE}` })
).annotations({ title: "Skill name", description: `${SKILL_NAME_RULE}; unique within its project or organization` })

const SkillPath = Schema.String.pipe(
  Schema.filter((path) => skillPathProblem(path) ?? true)
).annotations({ title: "Skill file path", description: `${SKILL_PATH_RULE}. SKILL.md is the Skill's main file.` })

const SkillMd = Schema.String.annotations({
  description: "SKILL.md, stored verbatim (frontmatter is not checked when saving); never blank. MCP clients are served it as a " +
    "skill only when it begins with YAML frontmatter giving name (the Skill's name) and description"
})

const CAPS = `Caps: ${MAX_SKILL_FILES} files (SKILL.md included), ${MAX_SKILL_FILE_BYTES / 1024} KB per file, ` +
  `${MAX_SKILL_BYTES / 1024 / 1024} MB per Skill over all its files (UTF-8 bytes).`

export const SkillEditEntry = Schema.Union(
  Schema.Struct({
    op: Schema.Literal("write"),
    path: SkillPath,
    content: Schema.String.annotations({ description: "The whole file; may be empty" })
  }).annotations({ title: "write", description: "Creates the file or overwrites it" }),
  Schema.Struct({
    op: Schema.Literal("replace"),
    path: SkillPath,
    oldString: Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" })).annotations({
      description: "Exact text to find: whitespace, newlines and case must match"
    }),
    newString: Schema.String.annotations({ description: "Replacement; empty deletes the match" }),
    replaceAll: Schema.optional(Schema.Boolean.annotations({
      description: "false (default): oldString must occur exactly once; true: replace every occurrence",
      default: false
    }))
  }).annotations({ title: "replace", description: "Swaps an exact string in the file" }),
  Schema.Struct({
    op: Schema.Literal("move"),
    path: SkillPath,
    newPath: SkillPath.annotations({ description: "Where the file goes; must not be used by another file" })
  }).annotations({ title: "move", description: "Renames the file (not SKILL.md)" }),
  Schema.Struct({
    op: Schema.Literal("delete"),
    path: SkillPath
  }).annotations({ title: "delete", description: "Removes the file (not SKILL.md)" })
).annotations({ identifier: "SkillEdit" })

export const SkillSummary = Schema.Struct({
  skillId: SkillId,
  scope: ScopeKind,
  name: Schema.String,
  description: Schema.NullOr(Schema.String).annotations({ description: "Author-written; untrusted content" }),
  category: Schema.NullOr(Schema.String),
  version: Schema.Int.annotations({ description: "Starts at 1; one bump per save that changes something" }),
  extensionProblem: Schema.NullOr(Schema.String).annotations({
    description: "Why MCP clients are not served this Skill through the MCP Skills extension (skills/list, resources/read), " +
      "for example SKILL.md without YAML frontmatter whose name is the Skill's name and whose description is set; " +
      "null when they are. May quote the frontmatter (author-written; untrusted content)"
  })
}).annotations({ identifier: "SkillSummary" })

export const SkillFile = Schema.Struct({ path: Schema.String, content: Schema.String })

const SkillIdArgument = SkillId.annotations({ description: "The Skill's ID (skill_…)" })

export const ListSkills = Tool.make("list_skills", {
  title: "List Skills",
  description: "Lists the Skills of a project (scope `project`, default) or of an organization (scope `organization`), by name, without " +
    "file content. `organization` (slug or ID) needs scope `organization`; without it, the organization owning projectId " +
    "(or the connection's ?project=) is used. A key narrowed to projects cannot reach organization Skills.",
  input: Schema.Struct(ScopeFields),
  output: Schema.Struct({ skills: Schema.Array(SkillSummary) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const GetSkill = Tool.make("get_skill", {
  title: "Get a Skill",
  description: "Returns a Skill's list fields plus SKILL.md (skillMd) and its other files, by path.",
  input: Schema.Struct({ skillId: SkillIdArgument }),
  output: Schema.Struct({ ...SkillSummary.fields, skillMd: Schema.String, files: Schema.Array(SkillFile) }),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const CreateSkill = Tool.make("create_skill", {
  title: "Create a Skill",
  description: "Creates a Skill (version 1) from its SKILL.md; add other files with update_skill. Scope arguments as list_skills. " +
    "Needs project role admin or member; organization scope needs organization role owner or admin.",
  input: Schema.Struct({
    ...ScopeFields,
    name: SkillName,
    content: SkillMd,
    description: Schema.optional(Schema.NullOr(Schema.String)),
    category: Schema.optional(Schema.NullOr(Schema.String))
  }),
  output: Schema.Struct({ skillId: SkillId }),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const UpdateSkill = Tool.make("update_skill", {
  title: "Update a Skill",
  description: "One save: `content` (a new SKILL.md) is applied first, then `edits` in order, each seeing the earlier results, then " +
    "name, description and category. The version goes up by one when anything stored changes, and not at all otherwise. " +
    "A `replace` whose oldString is missing, or occurs more than once without replaceAll, stops the save and is reported " +
    "as `{ ok: false, index, code, message, occurrences }` (code old_string_not_found or multiple_matches). A cap breach, " +
    `a missing file or a bad path is a tool error. Either way nothing is written. ${CAPS} Returns { ok: true, version }.`,
  input: Schema.Struct({
    skillId: SkillIdArgument,
    name: Schema.optional(SkillName),
    content: Schema.optional(SkillMd.annotations({ description: "The new SKILL.md, verbatim; never blank" })),
    description: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    category: Schema.optional(Schema.NullOr(Schema.String).annotations({ description: "null clears" })),
    edits: Schema.optional(Schema.Array(SkillEditEntry).annotations({ description: "Applied in order after content" }))
  }),
  output: Schema.Union(
    Schema.Struct({ ok: Schema.Literal(true), version: Schema.Int }),
    Schema.Struct({
      ok: Schema.Literal(false),
      index: Schema.Int.annotations({ description: "Position in edits of the replace that stopped the save" }),
      code: Schema.Literal("old_string_not_found", "multiple_matches"),
      message: Schema.String,
      occurrences: Schema.Int
    })
  ),
  annotations: { readOnly: false, destructive: false, idempotent: false }
})

export const DeleteSkill = Tool.make("delete_skill", {
  title: "Delete a Skill",
  description: "Deletes a Skill with all its files. Returns null.",
  input: Schema.Struct({ skillId: SkillIdArgument }),
  output: Schema.Null,
  annotations: { readOnly: false, destructive: true, idempotent: false }
})

export const LoadSkill = Tool.make("load_skill", {
  title: "Load a Skill",
  description: "Loads a Skill of the project by name: { name, description, skillMd, paths } (paths = its other files, for " +
    "read_skill_file), or null when the project has no Skill of that name. Organization Skills are never loaded here.",
  input: Schema.Struct({ name: Schema.String.annotations({ description: "The Skill's name" }), projectId: Tool.ProjectIdArgument }),
  output: Schema.NullOr(Schema.Struct({
    name: Schema.String,
    description: Schema.NullOr(Schema.String).annotations({ description: "Author-written; untrusted content" }),
    skillMd: Schema.String,
    paths: Schema.Array(Schema.String)
  })),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})

export const ReadSkillFile = Tool.make("read_skill_file", {
  title: "Read a Skill file",
  description: "Reads one file of a project Skill by path (one of load_skill's paths, or SKILL.md): { path, content }, or null when " +
    "the Skill or the path does not exist.",
  input: Schema.Struct({
    name: Schema.String.annotations({ description: "The Skill's name" }),
    path: Schema.String.annotations({ description: "A path from load_skill's paths" }),
    projectId: Tool.ProjectIdArgument
  }),
  output: Schema.NullOr(SkillFile),
  annotations: { readOnly: true, destructive: false, idempotent: true }
})
