import { useState } from "react"
import { describeError } from "../lib/api"
import { navigate, skillsPath } from "../lib/router"
import { useToolMutation } from "./skillTools"

/** `delete_skill`: the Skill and all its files, after the person confirms; then back to the Skills. */
export const DeleteSkill = ({ name, projectId, skillId }: {
  readonly projectId: string
  readonly skillId: string
  readonly name: string
}) => {
  const [asking, setAsking] = useState(false)
  const remove = useToolMutation("delete_skill")
  const confirm = () =>
    remove.mutate({ skillId }, {
      onSuccess: () => {
        void remove.client.invalidateQueries({ queryKey: ["list_skills"] })
        remove.client.removeQueries({ queryKey: ["get_skill", { skillId }] })
        navigate(skillsPath(projectId))
      }
    })
  return (
    <div className="page-section">
      {asking
        ? (
          <div className="confirm" role="group" aria-label={`Delete ${name}`}>
            <p>Delete {name} and all its files for good?</p>
            <button type="button" className="danger" onClick={confirm} disabled={remove.isPending}>Delete</button>
            <button type="button" className="quiet" onClick={() => setAsking(false)}>Cancel</button>
          </div>
        )
        : <button type="button" className="quiet danger" onClick={() => setAsking(true)}>Delete Skill</button>}
      {remove.isError ? <p className="field-error" role="alert">Not deleted: {describeError(remove.error)}</p> : null}
    </div>
  )
}
