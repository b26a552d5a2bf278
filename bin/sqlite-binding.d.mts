/** better-sqlite3's binding in place and loading, built if needed; 0, or the failed build's status. */
export function ensureSqliteBinding(log?: (line: string) => void): Promise<number>;
