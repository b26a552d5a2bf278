/** The activations section of /admin: the newest events, the total, and counts per skill. */
import {
  type ActivationEvent,
  activationCountsBySkill,
  countActivationEvents,
  type Database,
  listActivationEvents,
  type SkillActivationCount,
} from '../db';

export interface AdminActivation {
  id: number;
  at: number;
  skillName: string;
  chatId: string;
  chatTitle: string;
  how: 'explicit' | 'model';
}

export interface AdminActivationCount {
  skillName: string;
  count: number;
  explicitCount: number;
  modelCount: number;
  chatCount: number;
  lastAt: number;
}

export interface AdminActivations {
  events: AdminActivation[];
  total: number;
  bySkill: AdminActivationCount[];
}

export interface ActivationData {
  events: ActivationEvent[];
  total: number;
  bySkill: SkillActivationCount[];
}

/** Newest activation events shown on the page; the total says how many exist. */
export const ACTIVATION_LOG_LIMIT = 200;

export async function loadActivationData(db: Database): Promise<ActivationData> {
  const [events, total, bySkill] = [
    await listActivationEvents({ limit: ACTIVATION_LOG_LIMIT }, db),
    await countActivationEvents({}, db),
    await activationCountsBySkill(db),
  ];
  return { events, total, bySkill };
}

export function buildActivations(activations: ActivationData): AdminActivations {
  return {
    events: activations.events.map((e) => ({
      id: e.id,
      at: e.at.getTime(),
      skillName: e.skillName,
      chatId: e.chatId,
      chatTitle: e.chatTitle,
      how: e.how,
    })),
    total: activations.total,
    bySkill: activations.bySkill.map((c) => ({
      skillName: c.skillName,
      count: c.count,
      explicitCount: c.explicitCount,
      modelCount: c.modelCount,
      chatCount: c.chatCount,
      lastAt: c.lastAt.getTime(),
    })),
  };
}
