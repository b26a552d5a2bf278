/**
 * An MCP server that serves skills (the skills extension, SEP-2640), written with the official SDK
 * (`SkillsExtension` over a `SkillSource`, entries from `skillEntry`), over Streamable HTTP on 127.0.0.1. Tests
 * change it while it runs: `setFile` changes a file and its listed digest (an honest update), `tamper` changes only
 * the bytes it serves (the listing keeps the old digest), and a skill may be served as "dynamic".
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { type Skill, type SkillSource, SkillsExtension, skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { serveOverHttp, type TestHttpServer } from './servers';

export interface SkillFixture {
  /** The skill path: `skill://<path>/SKILL.md`; its last segment is the skill's name. */
  path: string;
  files: Record<string, string>;
  dynamic?: boolean;
}

export interface TestSkillsServer extends TestHttpServer {
  /** Changes a file, and its digest in the listing. */
  setFile(skillPath: string, file: string, content: string): Promise<void>;
  /** Serves other bytes for a file while the listing keeps its digest. */
  tamper(skillPath: string, file: string, content: string): void;
  /** `resources/read` URIs asked for, in order. */
  reads: string[];
}

interface Held {
  fixture: SkillFixture;
  entry: Skill;
  served: Record<string, string>;
}

async function hold(fixture: SkillFixture): Promise<Held> {
  const entry = await skillEntry(fixture.path, fixture.files);
  return {
    fixture,
    entry: fixture.dynamic ? { ...entry, resources: 'dynamic' } : entry,
    served: { ...fixture.files },
  };
}

export async function startSkillsHttpServer(fixtures: SkillFixture[]): Promise<TestSkillsServer> {
  const skills = new Map<string, Held>();
  for (const fixture of fixtures) skills.set(fixture.path, await hold(fixture));
  const reads: string[] = [];
  const find = (uri: string) => {
    for (const held of skills.values()) {
      const base = `skill://${held.fixture.path}/`;
      if (uri.startsWith(base)) return { held, file: decodeURIComponent(uri.slice(base.length)) };
    }
    return null;
  };
  const source: SkillSource = {
    async list() {
      return { skills: [...skills.values()].map((h) => h.entry) };
    },
    async get(uri) {
      return [...skills.values()].find((h) => h.entry.uri === uri)?.entry;
    },
    async read(uri) {
      reads.push(uri);
      const found = find(uri);
      const text = found?.held.served[found.file];
      return text === undefined ? undefined : { text, mimeType: 'text/plain' };
    },
  };
  const handler = createMcpHandler(() => {
    const server = new McpServer(
      { name: 'skillchat-test-skills', version: '1.0.0' },
      { capabilities: { resources: {} } },
    );
    new SkillsExtension({ source, cacheHint: { ttlMs: 0, cacheScope: 'private' }, onWarning: () => {} }).attach(server);
    return server;
  });
  const http = await serveOverHttp(handler);
  return {
    ...http,
    reads,
    async setFile(skillPath, file, content) {
      const held = skills.get(skillPath)!;
      const files = { ...held.fixture.files, [file]: content };
      skills.set(skillPath, await hold({ ...held.fixture, files }));
    },
    tamper(skillPath, file, content) {
      skills.get(skillPath)!.served[file] = content;
    },
  };
}
