import type { ProjectRole } from "../../../catalog/domain/Roles.js"

/** List management: any role that may change the project's work (admin, member); not viewers. */
export const canManageLists = (role: ProjectRole): boolean => role === "admin" || role === "member"

export const canWrite = (role: ProjectRole): boolean => role === "admin" || role === "member"

export const isProjectAdmin = (role: ProjectRole): boolean => role === "admin"
