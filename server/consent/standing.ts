/**
 * A person's standing grants as /settings shows them (today the shell's: commands starting with a prefix, kept by
 * "Always allow" on a command's card), and their revocation by that person. /admin lists and revokes every grant.
 */
import { type Database, listPersonalGrants, revokeGrant } from '../db';
import { AppError } from '../errors';
import { subjectFromStored } from './subjects';

export interface StandingGrantView {
  id: number;
  /** The command prefix it covers. */
  prefix: string;
  grantedAt: number;
}

export async function standingShellGrants(db: Database, userId: string): Promise<StandingGrantView[]> {
  return (await listPersonalGrants(userId, 'shell-prefix', db)).flatMap((g) => {
    const subject = subjectFromStored({ kind: g.subjectKind, key: g.subject });
    return subject?.kind === 'shell-prefix'
      ? [{ id: g.id, prefix: subject.prefix, grantedAt: g.grantedAt.getTime() }]
      : [];
  });
}

/** Revokes one of the person's own grants; 404 for an id that is not theirs or no longer active. */
export async function revokeStandingGrant(
  db: Database,
  userId: string,
  rawId: string,
  now = new Date(),
): Promise<void> {
  const id = Number(rawId);
  if (!Number.isSafeInteger(id) || id <= 0)
    throw new AppError('bad_request:grant', 'A grant id is a positive whole number');
  if (!(await revokeGrant(id, now, db, userId))) {
    throw new AppError('not_found:grant', 'You have no standing grant with that id (it may have been revoked already)');
  }
}
