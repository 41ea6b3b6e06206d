export const PROMPT_KEY_PATTERN = /^[a-z0-9:-]{2,40}$/
export const PROMPT_KEY_RULE = "2–40 characters of lowercase letters, digits, hyphens and colons, without a leading slash"
