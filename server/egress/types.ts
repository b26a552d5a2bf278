/**
 * The egress vocabulary shared by the grant, the proxy, the record and the sandbox: what a run asks to reach, what
 * was decided, and what is kept of it. Browser-safe (no Node imports).
 */

/** A host and port a run asked for. `host` is canonical: lower case, no brackets, an IP literal in its usual form. */
export interface EgressTarget {
  host: string;
  port: number;
}

/** Why a request was refused, as a code (stored, filtered on /admin) and a sentence (shown to the model). */
export type EgressRefusalCode =
  | 'not-granted' // no active skill of the chat is granted this host:port
  | 'not-declared' // (ask mode) the skill neither declares nor is granted it
  | 'needs-approval' // declared, not granted, the person has not approved it
  | 'denied' // the person refused
  | 'private-address' // resolves to loopback, private, link-local, metadata... not in network.private
  | 'unresolved' // the name does not resolve
  | 'byte-cap' // the run's byte caps were reached
  | 'time-limit' // the run's egress time ran out
  | 'connection-cap' // too many connections at once
  | 'sni-mismatch' // the TLS name is not the CONNECT host
  | 'host-mismatch' // an inner request's Host is not the CONNECT host
  | 'method' // a limited host (package index) got a method other than GET/HEAD
  | 'secret-missing' // a personal secret this host needs is not set
  | 'upstream'; // the upstream could not be reached

export type EgressDecision =
  | {
      allow: true;
      /** The skills whose grant matched (for the record). */
      skills: string[];
      /** Headers the proxy sets on every request to this target (secrets with `header`); forces TLS interception. */
      headers?: Record<string, string>;
      /** Only GET and HEAD (package indexes): forces TLS interception. */
      limited?: boolean;
    }
  | { allow: false; code: EgressRefusalCode; reason: string; skills: string[] };

/** One connection or plain-HTTP request, as the record keeps it. */
export interface EgressEvent {
  host: string;
  port: number;
  allowed: boolean;
  code?: EgressRefusalCode;
  reason?: string;
  skills: string[];
  /** Requests seen in it (1 for an opaque tunnel). */
  requests: number;
  bytesIn: number;
  bytesOut: number;
  /** ms since the epoch. */
  startedAt: number;
  durationMs: number;
}

/** A run's egress, summed per host:port, for the tool result and the card. */
export interface EgressSummaryLine {
  host: string;
  port: number;
  allowed: boolean;
  requests: number;
  bytesIn: number;
  bytesOut: number;
  /** The first refusal's sentence. */
  reason?: string;
}

/**
 * What a backend needs to give a run its way out: the host side of the run's own proxy and what the run must
 * trust. The backend binds the socket at `/run/skillchat/egress.sock`, starts the in-sandbox forwarder on
 * 127.0.0.1:3128 and sets the proxy and CA variables; without `egress` a run has no network at all.
 */
export interface SandboxEgress {
  /** Host path of the run's proxy socket (egress/proxy.ts). */
  socket: string;
  /** Host PEM file: the system roots, the skillchat CA and `network.trust`; what every TLS client inside trusts. */
  trustBundle: string;
  /** Host PEM file of the skillchat CA alone (`NODE_EXTRA_CA_CERTS` adds it to Node's own roots). */
  ca: string;
  /** Extra variables that are not secret (a header secret's placeholder). */
  env: Record<string, string>;
  /** Secret values a skill gets as variables (secrets without `header`): never on a command line. */
  secretEnv: Record<string, string>;
}

/** A run's way out, opened once its slot has lent it a uid and closed when it ends (egress/run-egress.ts). */
export interface RunEgress {
  /** Null: the run stays sealed (nothing is granted or declared that it could use). */
  open(run: { runId: string; uid: number; gid: number }): Promise<OpenedEgress | null>;
}

export interface OpenedEgress {
  sandbox: SandboxEgress;
  /** Replaces every secret value the run could know (in any encoding) with `[secret NAME]`. */
  redact(text: string): string;
  /** The same for output that arrives in chunks: a value split across two chunks is still caught. */
  redactStream(): { push(chunk: string): string; flush(): string };
  /** Closes every connection, writes the record, and sums it per host for the tool result. */
  close(): Promise<EgressSummaryLine[]>;
}
