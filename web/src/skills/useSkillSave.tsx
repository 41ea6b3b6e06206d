import { useState } from "react"
import type { ToolError } from "../lib/api"
import { type SkillToolArgs, type SkillToolResult, useToolMutation } from "./skillTools"

export type SkillChange = Omit<SkillToolArgs<"update_skill">, "skillId">
export type SkillSaved = SkillToolResult<"update_skill">

/**
 * One `update_skill` save of the Skill; the Skill is read again after it. `saved` is the version
 * the last save left (shown beside what was saved), `onAnswer` gets the tool's answer, placed or
 * not, and `onError` its refusal.
 */
export const useSkillSave = (skillId: string) => {
  const update = useToolMutation("update_skill")
  const [version, setVersion] = useState<number | undefined>(undefined)
  const save = (
    change: SkillChange,
    callbacks: { readonly onAnswer?: (answer: SkillSaved) => void; readonly onError: (error: ToolError) => void }
  ) => {
    setVersion(undefined)
    update.mutate({ skillId, ...change }, {
      onSuccess: (answer) => {
        if (answer.ok) setVersion(answer.version)
        callbacks.onAnswer?.(answer)
        void update.client.invalidateQueries({ queryKey: ["get_skill"] })
        void update.client.invalidateQueries({ queryKey: ["list_skills"] })
      },
      onError: callbacks.onError
    })
  }
  return { save, saving: update.isPending, version }
}

/** What a save says once stored: the Skill's version after it. */
export const SavedVersion = ({ version }: { readonly version: number | undefined }) => (
  <p className="saved" role="status">{version === undefined ? "" : `Saved: version ${version}`}</p>
)
