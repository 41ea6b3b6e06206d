import * as Migrator from "@effect/sql/Migrator"
import { Layer } from "effect"
import identity from "./migrations/0001_identity.js"
import listsAndLabels from "./migrations/0002_lists_and_labels.js"
import tasks from "./migrations/0003_tasks.js"
import threads from "./migrations/0004_threads.js"
import agentsPromptsSkills from "./migrations/0005_agents_prompts_skills.js"
import artifacts from "./migrations/0006_artifacts.js"
import interactionExpiry from "./migrations/0007_interaction_expiry.js"
import runtimeMachine from "./migrations/0008_runtime_machine.js"
import webSessions from "./migrations/0009_web_sessions.js"
import readOnlyKeys from "./migrations/0010_read_only_keys.js"
import turnStops from "./migrations/0011_turn_stops.js"
import projectChanges from "./migrations/0012_project_changes.js"
import taskFiles from "./migrations/0013_task_files.js"
import changeReports from "./migrations/0014_change_reports.js"
import reviewComments from "./migrations/0015_review_comments.js"
import settingsChanges from "./migrations/0016_settings_changes.js"
import changeLog from "./migrations/0017_change_log.js"
import changeRequests from "./migrations/0018_change_requests.js"

/** Forward-only migrations, numbered; a new one is a new entry, never an edit. */
export const migrations = Migrator.fromRecord({
  "0001_identity": identity,
  "0002_lists_and_labels": listsAndLabels,
  "0003_tasks": tasks,
  "0004_threads": threads,
  "0005_agents_prompts_skills": agentsPromptsSkills,
  "0006_artifacts": artifacts,
  "0007_interaction_expiry": interactionExpiry,
  "0008_runtime_machine": runtimeMachine,
  "0009_web_sessions": webSessions,
  "0010_read_only_keys": readOnlyKeys,
  "0011_turn_stops": turnStops,
  "0012_project_changes": projectChanges,
  "0013_task_files": taskFiles,
  "0014_change_reports": changeReports,
  "0015_review_comments": reviewComments,
  "0016_settings_changes": settingsChanges,
  "0017_change_log": changeLog,
  "0018_change_requests": changeRequests
})

// No schema dump: the generic migrator needs nothing beyond the SqlClient, so embedders need no filesystem or pg_dump.
const run = Migrator.make({})

export const runMigrations = run({ loader: migrations, table: "trellis_migrations" })

export const MigrationsLive = Layer.effectDiscard(runMigrations)
