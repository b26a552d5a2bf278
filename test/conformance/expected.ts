/**
 * What the conformance test (conformance.test.ts) expects of each scenario of the pinned suite. Every scenario
 * must pass unless it is listed here:
 *
 * - `notApplicable`: the scenario (or one check of it, `scenario:check-id`) needs what a product server does not
 *   have (the suite's own fixture tools, prompts and `test://` resources) or is an optional extension skillchat does
 *   not implement. The reason says which. A listed one that passes fails the test: take it off the list.
 * - `pending`: skillchat should pass it and does not yet (the issue says what is missing). A pending one that
 *   passes fails the test too: delete its line, and from then on it is required. `auth/*` covers every auth
 *   scenario not listed as not applicable.
 */

export type Expectations = Record<string, string>;

/** The server scenarios run against `POST /mcp`, which serves a person's skills as resources and has no tools. */
const NO_TOOLS = "calls the suite's fixture tools (`test_simple_text` ...): /mcp serves skills and has no tools";
const NO_PROMPTS = '/mcp has no prompts';

export const server: { notApplicable: Expectations; pending: Expectations } = {
  notApplicable: {
    'logging-set-level': 'the optional logging capability: /mcp logs nothing to its clients',
    'completion-complete': 'the optional completions capability: /mcp has no prompts or templates to complete',
    'tools-list': NO_TOOLS,
    'tools-call-simple-text': NO_TOOLS,
    'tools-call-image': NO_TOOLS,
    'tools-call-audio': NO_TOOLS,
    'tools-call-embedded-resource': NO_TOOLS,
    'tools-call-mixed-content': NO_TOOLS,
    'tools-call-with-logging': NO_TOOLS,
    'tools-call-error': NO_TOOLS,
    'tools-call-with-progress': NO_TOOLS,
    'tools-call-sampling': NO_TOOLS,
    'tools-call-elicitation': NO_TOOLS,
    'json-schema-2020-12': NO_TOOLS,
    'elicitation-sep1034-defaults': NO_TOOLS,
    'elicitation-sep1330-enums': NO_TOOLS,
    'http-header-validation': `Mcp-Name headers on tools/call: ${NO_TOOLS}`,
    'http-custom-header-server-validation': `Mcp-Param headers from tool parameters: ${NO_TOOLS}`,
    'input-required-result-basic-elicitation': NO_TOOLS,
    'input-required-result-basic-sampling': NO_TOOLS,
    'input-required-result-basic-list-roots': NO_TOOLS,
    'input-required-result-request-state': NO_TOOLS,
    'input-required-result-multiple-input-requests': NO_TOOLS,
    'input-required-result-multi-round': NO_TOOLS,
    'input-required-result-non-tool-request': NO_TOOLS,
    'input-required-result-result-type': NO_TOOLS,
    'input-required-result-tampered-state': NO_TOOLS,
    'input-required-result-capability-check': NO_TOOLS,
    'server-stateless:sep-2575-server-rejects-undeclared-capability':
      "the suite's diagnostic tool `test_missing_capability`",
    'server-stateless:sep-2575-missing-capability-http-400': "the suite's diagnostic tool `test_missing_capability`",
    'server-stateless:sep-2575-http-server-no-independent-requests-on-stream':
      "the suite's diagnostic tool `test_streaming_elicitation`",
    'server-stateless:sep-2575-server-no-log-without-loglevel': "the suite's diagnostic tool `test_logging_tool`",
    'caching:sep-2549-tools-list-caching-hints':
      'no tools/list on /mcp (the resources and skills lists carry the hints)',
    'caching:sep-2549-prompts-list-caching-hints': 'no prompts/list on /mcp',
    'resources-read-text': "reads the suite's fixture resource `test://static-text`; /mcp serves `skill://` files",
    'resources-read-binary': "reads the suite's fixture resource `test://static-binary`; /mcp serves `skill://` files",
    'resources-templates-read': "reads the suite's fixture template `test://template/{id}/data`",
    'resources-subscribe': 'the optional subscriptions: /mcp is stateless (a server per request), so none to keep',
    'resources-unsubscribe': 'the optional subscriptions: /mcp is stateless (a server per request), so none to keep',
    'prompts-list': NO_PROMPTS,
    'prompts-get-simple': NO_PROMPTS,
    'prompts-get-with-args': NO_PROMPTS,
    'prompts-get-embedded-resource': NO_PROMPTS,
    'prompts-get-with-image': NO_PROMPTS,
    'tasks-lifecycle': `the tasks extension (SEP-2663) for long tool calls: ${NO_TOOLS}`,
    'tasks-capability-negotiation': 'the tasks extension (SEP-2663): /mcp does not declare it (no tools)',
    'tasks-wire-fields': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-request-state-removal': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-mrtr-input': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-request-headers': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-dispatch-and-envelope': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-required-task-error': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
    'tasks-mrtr-composition': `the tasks extension (SEP-2663): ${NO_TOOLS}`,
  },
  pending: {},
};

/** The client scenarios run against skillchat's MCP client (client-driver.ts). */
const PERSON_SIGNS_IN = 'skillchat signs each person in with the authorization code flow, not';

export const client: { notApplicable: Expectations; pending: Expectations } = {
  notApplicable: {
    'auth/client-credentials-jwt': `an extension (SEP-1730: not required): ${PERSON_SIGNS_IN} client credentials`,
    'auth/client-credentials-basic': `an extension (SEP-1730: not required): ${PERSON_SIGNS_IN} client credentials`,
    'auth/enterprise-managed-authorization': `an extension (SEP-990): ${PERSON_SIGNS_IN} an enterprise IdP's token exchange`,
    'auth/wif-jwt-bearer': `an extension: ${PERSON_SIGNS_IN} workload identity federation`,
    'auth/dpop': 'an extension (DPoP-bound tokens, SEP-1730: not required): skillchat sends bearer tokens',
    'auth/dpop-nonce': 'an extension (DPoP-bound tokens, SEP-1730: not required): skillchat sends bearer tokens',
  },
  pending: {},
};

/** The entry of `list` that covers scenario (or `scenario:check`), exact names before `prefix/*`. */
export function entryFor(list: Expectations, name: string): string | undefined {
  if (name in list) return list[name];
  const prefix = Object.keys(list).find((key) => key.endsWith('/*') && name.startsWith(key.slice(0, -1)));
  return prefix === undefined ? undefined : list[prefix];
}

export interface Check {
  id: string;
  status: string;
  errorMessage?: string | null;
}

export interface ScenarioRow {
  scenario: string;
  verdict: 'pass' | 'fail' | 'not applicable' | 'pending';
  passed: number;
  failed: number;
  /** The not-applicable or pending reason. */
  reason?: string;
}

/**
 * Each listed scenario's verdict from its checks, and the problems that fail the test: a required scenario that
 * fails or did not run, a pending or not-applicable one that passes, an entry that names no scenario of the suite.
 */
export function judge(
  listed: readonly string[],
  results: ReadonlyMap<string, readonly Check[]>,
  expected: { notApplicable: Expectations; pending: Expectations },
): { rows: ScenarioRow[]; problems: string[] } {
  const rows: ScenarioRow[] = [];
  const problems: string[] = [];
  for (const key of [...Object.keys(expected.notApplicable), ...Object.keys(expected.pending)]) {
    const scenario = key.split(':')[0]!;
    if (!key.endsWith('/*') && !listed.includes(scenario))
      problems.push(`${key}: expected.ts names no scenario of the suite`);
  }
  for (const scenario of listed) {
    const checks = results.get(scenario);
    if (!checks) {
      problems.push(`${scenario}: did not run (no checks.json)`);
      continue;
    }
    const failures = checks.filter((c) => c.status === 'FAILURE');
    const excused = (c: Check) => `${scenario}:${c.id}` in expected.notApplicable;
    for (const key of Object.keys(expected.notApplicable)) {
      if (key.startsWith(`${scenario}:`) && !failures.some((c) => `${scenario}:${c.id}` === key)) {
        problems.push(`${key}: listed as not applicable but it does not fail; take it off the list`);
      }
    }
    const failing = failures.filter((c) => !excused(c));
    const counts = { passed: checks.filter((c) => c.status === 'SUCCESS').length, failed: failing.length };
    const notApplicable = expected.notApplicable[scenario];
    const pending = notApplicable === undefined ? entryFor(expected.pending, scenario) : undefined;
    if (notApplicable !== undefined) {
      rows.push({ scenario, verdict: 'not applicable', reason: notApplicable, ...counts });
      if (failing.length === 0) problems.push(`${scenario}: listed as not applicable but passes; take it off the list`);
    } else if (pending !== undefined) {
      rows.push({ scenario, verdict: 'pending', reason: pending, ...counts });
      if (failing.length === 0)
        problems.push(`${scenario}: pending but passes; delete its pending line in expected.ts`);
    } else {
      rows.push({ scenario, verdict: failing.length === 0 ? 'pass' : 'fail', ...counts });
      for (const c of failing)
        problems.push(`${scenario}: ${c.id} failed${c.errorMessage ? `: ${c.errorMessage}` : ''}`);
    }
  }
  return { rows, problems };
}
