import { randomUUID } from "node:crypto"

export const uuid = (): string => randomUUID()
