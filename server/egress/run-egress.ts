/**
 * A run's way out, put together: the grant of its skills (grants.ts), the secrets its person may use
 * (secrets/resolve.ts), its own proxy on a Unix socket (proxy.ts), the TLS branch for hosts that get a secret header
 * or are limited to reads (intercept.ts, with the server's CA from ca.ts), the redaction of every value the run could
 * know (secrets/redact.ts), and the record of what it reached (record.ts). sandbox/run.ts opens it once the run has
 * a slot and closes it when the run ends; a server that grants nothing (no `network.skills`, no `secrets`, installs
 * `off`) opens nothing, and its runs stay sealed as before.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../db';
import { oncePerKey } from '../once-per-key';
import { createRedactor } from '../secrets/redact';
import type { RunSecret } from '../secrets/resolve';
import type { Resolver } from './address';
import { type EgressCa, loadOrCreateCa, upstreamTrust, writeTrustBundle } from './ca';
import { type EgressConfig, egressConfigured } from './config';
import { createRunGrant, type RunSkill, type SkillPermission } from './grants';
import { interceptTunnel } from './intercept';
import { openRunProxy } from './proxy';
import { createEgressRecorder } from './record';
import type { EgressTarget, OpenedEgress, RunEgress } from './types';

export interface RunEgressContext {
  config: EgressConfig;
  /** The skills the run is attributed to: the script's own, or the chat's active ones for a command. */
  skills: RunSkill[];
  permission(skill: string): SkillPermission;
  /** The person approved these declared hosts for this run (the tool call's approval card). */
  approved?(skill: RunSkill, target: EgressTarget): boolean;
  /** The secrets of these skills with their values for the run's person (read at each run). */
  secrets(): Promise<RunSecret[]>;
  /** Where the run's egress record goes; without a database it is only summed for the result. */
  record: { db: Database | null; chatId: string | null; userId: string | null };
  /** The package indexes' `host:port` patterns (runtime.installs `allow`, sandbox/installs.ts), read at each run. */
  installs?: () => Promise<readonly string[]>;
  /** Tests map names to loopback. */
  resolve?: Resolver;
}

const cas = new Map<string, Promise<EgressCa>>();
function caFor(dir: string): Promise<EgressCa> {
  return oncePerKey(cas, dir, () => loadOrCreateCa(dir));
}

export function runEgress(ctx: RunEgressContext): RunEgress | undefined {
  if (!egressConfigured(ctx.config, ctx.installs !== undefined)) return undefined;
  return { open: (run) => openEgress(ctx, run) };
}

const trusts = new Map<string, Promise<{ bundle: string; ca: string; upstream: string[] }>>();
/** The trust bundle and the upstream roots, written once per process and trust list. */
function trustFor(config: EgressConfig, ca: EgressCa) {
  return oncePerKey(trusts, `${config.dir}\n${config.network.trust.join('\n')}`, async () => ({
    ...(await writeTrustBundle(config.dir, ca, config.network.trust)),
    upstream: await upstreamTrust(config.network.trust),
  }));
}

/** A value a script can be given that is not the secret: SDKs that insist on a token are satisfied. */
function placeholder(name: string): string {
  return `skillchat-placeholder-${name}-${randomBytes(4).toString('hex')}`;
}

async function openEgress(
  ctx: RunEgressContext,
  run: { runId: string; uid: number; gid: number },
): Promise<OpenedEgress> {
  const { config } = ctx;
  const ca = await caFor(config.dir);
  const trust = await trustFor(config, ca);
  const secrets = await ctx.secrets();
  const installs = (await ctx.installs?.()) ?? [];
  const grant = createRunGrant({
    config,
    skills: ctx.skills,
    permission: ctx.permission,
    ...(ctx.approved ? { approved: ctx.approved } : {}),
    secrets,
    installs,
  });
  const env: Record<string, string> = {};
  const secretEnv: Record<string, string> = {};
  for (const secret of secrets) {
    if (secret.header) env[secret.name] = placeholder(secret.name);
    else if (secret.value !== null) secretEnv[secret.name] = secret.value;
  }
  const redactor = createRedactor(secrets.flatMap((s) => (s.value === null ? [] : [{ name: s.name, value: s.value }])));
  const recorder = createEgressRecorder(
    { runId: run.runId, chatId: ctx.record.chatId, userId: ctx.record.userId },
    ctx.record.db,
  );
  const runs = path.join(config.dir, 'runs');
  await fs.promises.mkdir(runs, { recursive: true, mode: 0o700 });
  const root = process.getuid?.() === 0;
  const proxy = await openRunProxy({
    socketPath: path.join(runs, `${run.runId}.sock`),
    ...(root ? { socketMode: 0o660, socketGid: run.gid } : {}),
    decide: async (target) => grant.decide(target),
    private: config.network.private,
    ...(ctx.resolve ? { resolve: ctx.resolve } : {}),
    limits: config.network.limits,
    intercept: (client, head, tunnel) =>
      interceptTunnel(client, head, {
        target: tunnel.target,
        address: tunnel.address,
        headers: tunnel.decision.headers ?? {},
        limited: tunnel.decision.limited === true,
        ca,
        upstreamCa: trust.upstream,
        onRequest: (request) => {
          tunnel.countRequest();
          if (!request.allowed) {
            recorder.add({
              host: tunnel.target.host,
              port: tunnel.target.port,
              allowed: false,
              ...(request.code ? { code: request.code } : {}),
              ...(request.reason ? { reason: request.reason } : {}),
              skills: tunnel.decision.skills,
              requests: 1,
              bytesIn: request.bytesIn,
              bytesOut: request.bytesOut,
              startedAt: Date.now(),
              durationMs: 0,
            });
          }
        },
      }),
    onEvent: (event) => recorder.add(event),
  });
  return {
    sandbox: { socket: proxy.socketPath, trustBundle: trust.bundle, ca: trust.ca, env, secretEnv },
    redact: (text) => redactor.redact(text),
    redactStream: () => redactor.stream(),
    async close() {
      await proxy.close();
      return recorder.close();
    },
  };
}
