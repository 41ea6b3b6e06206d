import type { FilterChoices, Filters } from "./columns"
import { NONE } from "./columns"

const Choice = ({ label, value, onChange, options, noneLabel }: {
  readonly label: string
  readonly value: string
  readonly onChange: (value: string) => void
  readonly options: ReadonlyArray<{ readonly id: string; readonly name: string }>
  readonly noneLabel?: string
}) => (
  <label className="filter">
    <span>{label}</span>
    <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
      <option value="">Any</option>
      {noneLabel === undefined ? null : <option value={NONE}>{noneLabel}</option>}
      {options.map((option) => <option key={option.id} value={option.id}>{option.name}</option>)}
    </select>
  </label>
)

/** Text, status, owner, delegated agent and label filters, and whether archived tasks are shown. */
export const BoardFilters = ({ filters, choices, onChange, includeArchived, onIncludeArchived }: {
  readonly filters: Filters
  readonly choices: FilterChoices
  readonly onChange: (filters: Filters) => void
  readonly includeArchived: boolean
  readonly onIncludeArchived: (include: boolean) => void
}) => (
  <div className="filters" role="search" aria-label="Filter tasks">
    <label className="filter text">
      <span>Find</span>
      <input
        type="text"
        value={filters.text}
        placeholder="Name or ref"
        onChange={(event) => onChange({ ...filters, text: event.currentTarget.value })}
      />
    </label>
    <Choice
      label="Status"
      value={filters.status}
      onChange={(status) => onChange({ ...filters, status })}
      options={choices.statuses.map((status) => ({ id: status, name: status }))}
    />
    <Choice
      label="Owner"
      value={filters.owner}
      onChange={(owner) => onChange({ ...filters, owner })}
      options={choices.owners}
      noneLabel="No owner"
    />
    <Choice
      label="Agent"
      value={filters.agent}
      onChange={(agent) => onChange({ ...filters, agent })}
      options={choices.agents}
      noneLabel="Not delegated"
    />
    <Choice
      label="Label"
      value={filters.label}
      onChange={(label) => onChange({ ...filters, label })}
      options={choices.labels}
      noneLabel="No label"
    />
    <label className="filter check">
      <input type="checkbox" checked={includeArchived} onChange={(event) => onIncludeArchived(event.currentTarget.checked)} />
      <span>Archived</span>
    </label>
  </div>
)
