/**
 * A fault-injecting HTTP proxy in front of the sandbox (dev-only, node:http): what a flaky
 * network, a misconfigured gateway or a service that changed under us would do to the client.
 * It listens on 127.0.0.1 (random port), forwards to the sandbox's origin and applies a scripted
 * fault per request; tests drive it in-process (no control endpoint).
 *
 * Scopes: a request under `/m/<scope>/…` belongs to that scope (the prefix is stripped before
 * forwarding), any other to the default scope "". Each scope has its own script, request indexes,
 * seeded PRNG, counters and exchange log, so one proxy serves many runs side by side (the fault
 * matrix gives every workflow a credential whose base URL is `baseUrlFor(scope)`).
 *
 * Script: rules tried in order; a rule matches on method and path (a RegExp, or its source, tested
 * against the path inside the scope, without the query: `^/v1/decide/`). Every request a rule
 * matches gets that rule's next index (1, 2, 3…), whether or not the rule fires for it. The rule
 * fires when every selector given holds: `nth` (the index is listed), `every` (index % every == 0),
 * `times` (fired fewer times so far), `duringMs` (time since the scope's first request),
 * `probability` (a draw from the scope's PRNG, seeded by the script). No selector: every matched
 * request. The first rule that fires applies its fault.
 *
 * Faults (see `Fault`): resets and hangs before or after the sandbox answered, slow answers,
 * redirects to a canary origin or to the proxy itself, gateway errors with and without the
 * service's envelope, crafted 429s, and 2xx answers patched or replaced after the sandbox charged.
 *
 * The canary (`startCanary`) is another loopback server that records every request reaching it
 * (method, path, whether an Authorization header and a body came, and their digests, never the
 * values) and answers 200 with a plausible run: a client that follows a redirect there is caught.
 */
import { createHash } from 'node:crypto';
import {
	Agent,
	createServer,
	request as httpRequest,
	type IncomingHttpHeaders,
	type IncomingMessage,
	type OutgoingHttpHeaders,
	type Server,
	type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { defaultFaultCode, mulberry32 } from '../sandbox/faults';

// -- script --------------------------------------------------------------------------------------

/** Where a reset or a hang happens: before forwarding (the sandbox never sees the request) or after it answered. */
export type Stage = 'before' | 'after';

export type Fault =
	/** The connection is reset (TCP RST). `after`: the sandbox handled (and charged) the request first. */
	| { kind: 'reset'; stage: Stage }
	/** No answer until the client gives up (or `maxHangMs`). `after`: the sandbox handled it first. */
	| { kind: 'hang'; stage: Stage }
	/** The sandbox's answer arrives `ms` late (`before`: the request reaches the sandbox `ms` late). */
	| { kind: 'delay'; ms: number; stage?: Stage }
	/**
	 * A 3xx instead of forwarding. `to: 'canary'`: Location is the same path and query on the canary
	 * origin; `'same-origin'`: on the proxy itself (`path` replaces the path inside the scope).
	 */
	| {
			kind: 'redirect';
			status: 301 | 302 | 303 | 307 | 308;
			to: 'canary' | 'same-origin';
			path?: string;
	  }
	/**
	 * An error answer instead of forwarding: the service's envelope (`code` defaults by status),
	 * an HTML gateway page, or an empty body. `headers` are added as given.
	 */
	| {
			kind: 'error';
			status: number;
			body: 'envelope' | 'html' | 'empty';
			code?: string;
			message?: string;
			headers?: Record<string, string>;
	  }
	/**
	 * 429 `rate_limited` instead of forwarding. The header values are sent exactly as given
	 * (garbage, negative, an HTTP date, epoch seconds…); an omitted one is not sent.
	 */
	| {
			kind: 'rate-limited';
			retryAfter?: string;
			limit?: string;
			remaining?: string;
			reset?: string;
			details?: Record<string, unknown>;
	  }
	/** 429 `quota_exceeded` instead of forwarding (Retry-After: seconds to next month unless given). */
	| { kind: 'quota-exceeded'; retryAfter?: string }
	/**
	 * Forwarded; a 2xx JSON object answer gets fields set (shallow: `{ engine: 'jev2' }`,
	 * `{ confidence: 1.7 }`, `{ extra: … }`) and removed. Any other answer passes unchanged.
	 */
	| { kind: 'patch'; set?: Record<string, unknown>; remove?: string[] }
	/**
	 * Forwarded; a 2xx answer is replaced (status 200): `not-json` (an HTML page with a JSON content
	 * type), `truncated` (its first half, framed correctly), `cut` (Content-Length of the whole,
	 * half sent, then the connection closes), `error-envelope` (the service's error object with
	 * 200), `empty`, `json-array` (the answer wrapped in an array). Any other answer passes unchanged.
	 */
	| {
			kind: 'replace';
			body: 'not-json' | 'truncated' | 'cut' | 'error-envelope' | 'empty' | 'json-array';
	  };

export type FaultKind = Fault['kind'];

export interface FaultRule {
	/** Any method when omitted. */
	method?: string;
	/** A RegExp or its source, tested against the path inside the scope (no query). Any path when omitted. */
	path?: RegExp | string;
	/** Fires on these indexes (1-based) of the requests this rule matches. */
	nth?: number[];
	/** Fires on every k-th matched request (k, 2k, 3k…). */
	every?: number;
	/** Fires with this probability (seeded). */
	probability?: number;
	/** Fires at most this many times. */
	times?: number;
	/**
	 * Fires only from `from` ms to `until` ms (excluded) after the scope's first request since its
	 * script was set: "429 with Retry-After: 0 for 3 s" is `{ duringMs: [0, 3000] }`.
	 */
	duringMs?: [from: number, until: number];
	fault: Fault;
}

export interface FaultScript {
	/** Seed of the scope's PRNG (for `probability`). Default 1. */
	seed?: number;
	rules: FaultRule[];
}

// -- what happened -------------------------------------------------------------------------------

/**
 * - `answered`: the client got the sandbox's answer (maybe late);
 * - `altered`: the client got a 200 made from the sandbox's answer (patched or replaced);
 * - `lost`: the sandbox answered but the client never got a readable answer (reset or hang after,
 *   cut body, or the client went away first);
 * - `injected`: not forwarded; the client got the proxy's own answer (error, 429, redirect);
 * - `dropped`: not forwarded (the connection was reset or hung, or the client left first), or
 *   forwarded but the sandbox gave no answer (unreachable, or its own `reset` fault: check its usage).
 */
export type Outcome = 'pending' | 'answered' | 'altered' | 'lost' | 'injected' | 'dropped';

export interface Exchange {
	/** Order of arrival in the scope, from 1. */
	seq: number;
	method: string;
	/** Path inside the scope, without the query. */
	path: string;
	/** The fault applied, if a rule fired: its kind and rule index. */
	fault?: { kind: FaultKind; rule: number };
	forwarded: boolean;
	/** The sandbox's status, once it answered. */
	upstreamStatus?: number;
	/** The status line the client got, if any. */
	sentStatus?: number;
	outcome: Outcome;
}

export interface CanaryHit {
	method: string;
	/** Path with the query, as it reached the canary (a scope's prefix included). */
	url: string;
	authorization: boolean;
	/** `digestOf(the header's value)`: compare with `digestOf('Bearer ' + key)`, never the key itself. */
	authorizationDigest?: string;
	body: boolean;
	bodyBytes: number;
	bodyDigest?: string;
}

/** Counts by `METHOD path` (path inside the scope, no query). */
export type CountsByRoute = Record<string, number>;

export interface ProxyCounters {
	received: CountsByRoute;
	forwarded: CountsByRoute;
	/** Forwarded and answered 2xx by the sandbox: for POST /v1/decide/*, a charged decide. */
	upstreamOk: CountsByRoute;
	/** Forwarded and answered 429 by the sandbox: refused for the key's rate, never charged. */
	upstreamRateLimited: CountsByRoute;
	/** Answers the sandbox gave that the client never got (outcome `lost`). */
	lostAfterAnswer: CountsByRoute;
	/** Answers delivered altered (outcome `altered`). */
	altered: CountsByRoute;
	/** Fired faults by kind. */
	faults: Partial<Record<FaultKind, number>>;
	/** Requests that reached the canary from this scope. */
	canaryHits: CanaryHit[];
}

/** Short SHA-256 of a text: enough to recognise a key or a body without recording it. */
export function digestOf(text: string | Buffer): string {
	return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** Sum of counts whose `METHOD path` key matches (e.g. /^POST \/v1\/decide\//). */
export function sumOf(counts: CountsByRoute, route: RegExp = /./): number {
	return Object.entries(counts)
		.filter(([key]) => route.test(key))
		.reduce((sum, [, count]) => sum + count, 0);
}

export const DECIDE_ROUTE = /^POST \/v1\/decide\//;

// -- the canary ----------------------------------------------------------------------------------

export interface CanaryOptions {
	/** The choice of the run it answers. Default 'billing' (an option of the demo `ticket-routing`). */
	choice?: string;
}

export interface Canary {
	origin: string;
	hits: CanaryHit[];
	clear(): void;
	close(): Promise<void>;
}

const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** Reads a whole body (bounded: a longer body is cut at MAX_BODY_BYTES and the rest discarded). */
function readBody(message: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		message.on('data', (chunk: Buffer) => {
			if (size < MAX_BODY_BYTES) chunks.push(chunk);
			size += chunk.length;
		});
		message.on('end', () => resolve(Buffer.concat(chunks)));
		// A client that goes away mid-body: what came is all there is.
		message.on('error', () => resolve(Buffer.concat(chunks)));
		message.on('close', () => resolve(Buffer.concat(chunks)));
	});
}

function listen(server: Server): Promise<string> {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as AddressInfo;
			resolve(`http://127.0.0.1:${port}`);
		});
	});
}

function closeServer(server: Server): Promise<void> {
	return new Promise((resolve) => {
		server.closeAllConnections();
		server.close(() => resolve());
	});
}

/** A plausible run of a route decision, as the service would answer a decide. */
function canaryRun(url: string, choice: string, seq: number): Record<string, unknown> {
	const slug = /\/decide\/([^/?]+)/.exec(url)?.[1] ?? 'ticket-routing';
	return {
		run_id: `run_canary${String(seq).padStart(6, '0')}`,
		decision: decodeURIComponent(slug),
		version: 1,
		status: 'ok',
		choice,
		probabilities: { [choice]: 0.91, other: 0.09 },
		confidence: 0.91,
		confidence_source: 'calibrated',
		engine: 'jev',
		model: 'jev-1',
		latency_ms: 3,
		pii_redacted: 0,
	};
}

export async function startCanary(options: CanaryOptions = {}): Promise<Canary> {
	const hits: CanaryHit[] = [];
	const choice = options.choice ?? 'billing';
	const server = createServer((request, response) => {
		void readBody(request).then((body) => {
			const authorization = request.headers.authorization;
			hits.push({
				method: request.method ?? 'GET',
				url: request.url ?? '/',
				authorization: authorization !== undefined,
				...(authorization !== undefined ? { authorizationDigest: digestOf(authorization) } : {}),
				body: body.length > 0,
				bodyBytes: body.length,
				...(body.length > 0 ? { bodyDigest: digestOf(body) } : {}),
			});
			const text = JSON.stringify(canaryRun(request.url ?? '/', choice, hits.length));
			response.writeHead(200, {
				'content-type': 'application/json; charset=utf-8',
				'content-length': Buffer.byteLength(text),
			});
			response.end(text);
		});
	});
	const origin = await listen(server);
	return {
		origin,
		hits,
		clear: () => void hits.splice(0, hits.length),
		close: () => closeServer(server),
	};
}

// -- the proxy -----------------------------------------------------------------------------------

export interface FaultProxyOptions {
	/** The sandbox's origin, e.g. http://127.0.0.1:8787 (no /v1). */
	target: string;
	/** A canary to redirect to; one is started (and closed with the proxy) when omitted. */
	canary?: Canary;
	/** Longest a hung request is held before its connection is reset. Default 10 minutes. */
	maxHangMs?: number;
}

export interface FaultProxy {
	/** http://127.0.0.1:PORT */
	origin: string;
	/** The default scope's base URL: origin + '/v1'. */
	baseUrl: string;
	canary: Canary;
	/** A scope's base URL: origin + '/m/<scope>/v1'. */
	baseUrlFor(scope: string): string;
	/** Replaces a scope's rules and restarts its indexes and PRNG; its counters are kept. */
	script(script: FaultScript | FaultRule[], scope?: string): void;
	/** Forgets a scope's rules, counters and log (every scope when omitted), and their canary hits. */
	reset(scope?: string): void;
	counters(scope?: string): ProxyCounters;
	exchanges(scope?: string): readonly Exchange[];
	/** Resolves once no exchange of any scope is pending (at most `timeoutMs`, default 30 s). */
	idle(timeoutMs?: number): Promise<void>;
	close(): Promise<void>;
}

interface ActiveRule {
	rule: FaultRule;
	pattern?: RegExp;
	matched: number;
	fired: number;
}

interface Scope {
	rules: ActiveRule[];
	/** When the first request since the script was set arrived (performance.now()). */
	startedAt?: number;
	random: () => number;
	exchanges: Exchange[];
	faults: Partial<Record<FaultKind, number>>;
}

const SCOPE_RE = /^\/m\/([A-Za-z0-9_-]{1,64})(\/.*)$/;
const HOP_BY_HOP = new Set([
	'connection',
	'keep-alive',
	'proxy-authenticate',
	'proxy-authorization',
	'proxy-connection',
	'te',
	'trailer',
	'transfer-encoding',
	'upgrade',
]);

const GATEWAY_PAGE = (status: number) =>
	`<html>\r\n<head><title>${status} Gateway Error</title></head>\r\n<body>\r\n<center><h1>${status} Gateway Error</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
	const out: OutgoingHttpHeaders = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined || HOP_BY_HOP.has(name) || name === 'content-length') continue;
		out[name] = value;
	}
	return out;
}

function json(value: unknown): { body: Buffer; headers: OutgoingHttpHeaders } {
	return {
		body: Buffer.from(JSON.stringify(value)),
		headers: { 'content-type': 'application/json; charset=utf-8' },
	};
}

function secondsToNextMonth(): number {
	const now = new Date();
	const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
	return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}

function newScope(script: FaultScript = { rules: [] }): Scope {
	return {
		rules: script.rules.map((rule) => ({
			rule,
			pattern:
				rule.path === undefined
					? undefined
					: rule.path instanceof RegExp
						? rule.path
						: new RegExp(rule.path),
			matched: 0,
			fired: 0,
		})),
		random: mulberry32(script.seed ?? 1),
		exchanges: [],
		faults: {},
	};
}

interface Selected {
	kind: FaultKind;
	rule: number;
	fault: Fault;
}

/** The rule that fires for this request, if any; advances every matching rule's index. */
function selectFault(scope: Scope, method: string, path: string): Selected | undefined {
	let chosen: Selected | undefined;
	scope.startedAt ??= performance.now();
	const elapsed = performance.now() - scope.startedAt;
	scope.rules.forEach((active, index) => {
		const { rule } = active;
		if (rule.method !== undefined && rule.method.toUpperCase() !== method) return;
		if (active.pattern && !active.pattern.test(path)) return;
		active.matched += 1;
		if (chosen) return;
		if (rule.nth !== undefined && !rule.nth.includes(active.matched)) return;
		if (rule.every !== undefined && active.matched % rule.every !== 0) return;
		if (rule.times !== undefined && active.fired >= rule.times) return;
		if (rule.duringMs && (elapsed < rule.duringMs[0] || elapsed >= rule.duringMs[1])) return;
		// Drawn only for requests every other selector let through, so a script's draws are stable.
		if (rule.probability !== undefined && scope.random() >= rule.probability) return;
		active.fired += 1;
		chosen = { kind: rule.fault.kind, rule: index, fault: rule.fault };
	});
	return chosen;
}

/** The sandbox's whole answer, as the proxy received it. */
interface UpstreamAnswer {
	status: number;
	headers: IncomingHttpHeaders;
	body: Buffer;
}

/** An answer the proxy makes itself instead of forwarding. */
interface OwnAnswer {
	status: number;
	headers: OutgoingHttpHeaders;
	body: Buffer;
}

/**
 * What the proxy keeps across requests: the scopes, the exchanges whose client side is not settled
 * and the forwards still waiting for the sandbox (what `idle` waits for), and the timers of held
 * requests. An exchange ends here: sent whole, or its connection reset.
 */
class ProxyState {
	readonly scopes = new Map<string, Scope>();
	// Exchanges whose client side is not settled, plus forwards still waiting for the sandbox.
	readonly pending = new Set<Exchange>();
	forwardsInFlight = 0;
	private readonly idleWaiters = new Set<() => void>();
	private readonly timers = new Set<NodeJS.Timeout>();

	scopeOf(name: string): Scope {
		let scope = this.scopes.get(name);
		if (!scope) {
			scope = newScope();
			this.scopes.set(name, scope);
		}
		return scope;
	}

	wakeIfIdle(): void {
		if (this.pending.size === 0 && this.forwardsInFlight === 0)
			for (const wake of [...this.idleWaiters]) wake();
	}

	settle(exchange: Exchange, outcome: Outcome): void {
		if (exchange.outcome !== 'pending') return;
		exchange.outcome = outcome;
		this.pending.delete(exchange);
		this.wakeIfIdle();
	}

	later(ms: number, work: () => void): void {
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			work();
		}, ms);
		// The server keeps the process alive while it listens; a pending hang must not once it is closed.
		timer.unref();
		this.timers.add(timer);
	}

	/** Sends a whole answer; settles the exchange once it is flushed, or as `lost`/`dropped` if the client left. */
	send(
		exchange: Exchange,
		response: ServerResponse,
		status: number,
		headers: OutgoingHttpHeaders,
		body: Buffer,
		outcome: Outcome,
	): void {
		if (response.destroyed || response.writableEnded) {
			this.settle(exchange, exchange.forwarded ? 'lost' : 'dropped');
			return;
		}
		exchange.sentStatus = status;
		response.writeHead(status, { ...headers, 'content-length': body.length });
		response.end(body, () => this.settle(exchange, outcome));
	}

	resetConnection(exchange: Exchange, socket: Socket, outcome: Outcome): void {
		this.settle(exchange, outcome);
		if (!socket.destroyed) socket.resetAndDestroy();
	}

	/** Resolves once no exchange of any scope is pending; rejects after `timeoutMs`. */
	idle(timeoutMs: number): Promise<void> {
		return new Promise<void>((resolve, reject) => {
			if (this.pending.size === 0 && this.forwardsInFlight === 0) return resolve();
			const timer = setTimeout(() => {
				this.idleWaiters.delete(wake);
				reject(
					new Error(
						`the fault proxy still has ${this.pending.size} exchange(s) and ${this.forwardsInFlight} forward(s) pending after ${timeoutMs} ms`,
					),
				);
			}, timeoutMs);
			const wake = () => {
				clearTimeout(timer);
				this.idleWaiters.delete(wake);
				resolve();
			};
			this.idleWaiters.add(wake);
		});
	}

	clearTimers(): void {
		for (const timer of this.timers) clearTimeout(timer);
		this.timers.clear();
	}
}

/** What handling a request needs of its proxy. */
interface ProxyContext {
	state: ProxyState;
	target: URL;
	upstreamAgent: Agent;
	canary: Canary;
	maxHangMs: number;
	/** The proxy's own origin, set once it listens. */
	origin: string;
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
	const target = new URL(options.target);
	const ownCanary = options.canary === undefined;
	const canary = options.canary ?? (await startCanary());
	const state = new ProxyState();
	const proxy: ProxyContext = {
		state,
		target,
		upstreamAgent: new Agent({ keepAlive: true, maxSockets: 64 }),
		canary,
		maxHangMs: options.maxHangMs ?? 600_000,
		origin: '',
	};
	const server = createServer((request, response) => {
		void handle(proxy, request, response).catch(() => {
			if (!request.socket.destroyed) request.socket.destroy();
		});
	});
	server.on('clientError', (_error, socket) => socket.destroy());
	const origin = await listen(server);
	proxy.origin = origin;

	return {
		origin,
		baseUrl: `${origin}/v1`,
		canary,
		baseUrlFor: (scope) => {
			if (!/^[A-Za-z0-9_-]{1,64}$/.test(scope))
				throw new Error(`a scope is 1-64 letters, digits, _ or -: "${scope}"`);
			return `${origin}/m/${scope}/v1`;
		},
		script(script, scope = '') {
			const full = Array.isArray(script) ? { rules: script } : script;
			const previous = state.scopeOf(scope);
			const next = newScope(full);
			next.exchanges = previous.exchanges;
			next.faults = previous.faults;
			state.scopes.set(scope, next);
		},
		reset(scope) {
			if (scope === undefined) {
				state.scopes.clear();
				canary.clear();
				return;
			}
			state.scopes.delete(scope);
			const kept = canary.hits.filter((hit) =>
				scope === '' ? SCOPE_RE.test(hit.url) : !hit.url.startsWith(`/m/${scope}/`),
			);
			canary.clear();
			canary.hits.push(...kept);
		},
		counters: (scope = '') => countersOf(state.scopeOf(scope), scope, canary.hits),
		exchanges: (scope = '') => state.scopeOf(scope).exchanges,
		idle: (timeoutMs = 30_000) => state.idle(timeoutMs),
		async close() {
			state.clearTimers();
			await closeServer(server);
			proxy.upstreamAgent.destroy();
			if (ownCanary) await canary.close();
		},
	};
}

/** A request as it arrives: its scope and path, the fault a rule fires for it, its logged exchange. */
interface Arrival {
	exchange: Exchange;
	scopeName: string;
	/** The path inside the scope, without the query. */
	path: string;
	/** The query with its `?`, or ''. */
	query: string;
	fault?: Fault;
}

/** Reads a request's scope and path, picks its fault and logs its exchange (pending). */
function arrive(state: ProxyState, request: IncomingMessage): Arrival {
	const url = request.url ?? '/';
	const queryAt = url.indexOf('?');
	const fullPath = queryAt < 0 ? url : url.slice(0, queryAt);
	const query = queryAt < 0 ? '' : url.slice(queryAt);
	const scoped = SCOPE_RE.exec(fullPath);
	const scopeName = scoped ? scoped[1] : '';
	const path = scoped ? scoped[2] : fullPath;
	const method = (request.method ?? 'GET').toUpperCase();
	const scope = state.scopeOf(scopeName);
	const selected = selectFault(scope, method, path);
	const exchange: Exchange = {
		seq: scope.exchanges.length + 1,
		method,
		path,
		...(selected ? { fault: { kind: selected.kind, rule: selected.rule } } : {}),
		forwarded: false,
		outcome: 'pending',
	};
	scope.exchanges.push(exchange);
	state.pending.add(exchange);
	if (selected) scope.faults[selected.kind] = (scope.faults[selected.kind] ?? 0) + 1;
	return { exchange, scopeName, path, query, fault: selected?.fault };
}

/**
 * One request: the faults that act before forwarding (reset, hang, an own answer, a delay), then
 * the forward, then the faults that act on the sandbox's answer (reset, hang, delay, patch, replace).
 */
async function handle(
	proxy: ProxyContext,
	request: IncomingMessage,
	response: ServerResponse,
): Promise<void> {
	const { state, maxHangMs } = proxy;
	const socket = request.socket;
	const { exchange, scopeName, path, query, fault } = arrive(state, request);
	// A client that leaves before its answer: the answer (if the sandbox gave one) is lost.
	response.on('close', () => {
		if (!response.writableFinished) state.settle(exchange, exchange.forwarded ? 'lost' : 'dropped');
	});

	const body = await readBody(request);

	if (fault?.kind === 'reset' && fault.stage === 'before')
		return state.resetConnection(exchange, socket, 'dropped');
	if (fault?.kind === 'hang' && fault.stage === 'before') {
		state.later(maxHangMs, () => state.resetConnection(exchange, socket, 'dropped'));
		return;
	}
	if (fault) {
		const own = injected(proxy, fault, scopeName, path, query);
		if (own) return state.send(exchange, response, own.status, own.headers, own.body, 'injected');
	}
	if (fault?.kind === 'delay' && fault.stage === 'before') {
		await new Promise<void>((resolve) => state.later(fault.ms, resolve));
		// The client gave up while the request was held: it is not sent on.
		if (exchange.outcome !== 'pending') return;
	}

	exchange.forwarded = true;
	state.forwardsInFlight += 1;
	const answer = await forward(proxy, request, path, query, body);
	state.forwardsInFlight -= 1;
	if (answer) exchange.upstreamStatus = answer.status;
	state.wakeIfIdle();
	if (!answer) {
		// The sandbox reset or was unreachable: so does the proxy.
		return state.resetConnection(exchange, socket, 'dropped');
	}
	if (exchange.outcome !== 'pending') return; // the client already left: settled as lost
	if (fault?.kind === 'reset') return state.resetConnection(exchange, socket, 'lost');
	if (fault?.kind === 'hang') {
		state.later(maxHangMs, () => state.resetConnection(exchange, socket, 'lost'));
		return;
	}
	const deliver = () => deliverAnswer(state, exchange, socket, response, fault, answer);
	if (fault?.kind === 'delay' && fault.stage !== 'before') state.later(fault.ms, deliver);
	else deliver();
}

/** Gives the client the sandbox's answer, or what a patch/replace fault made of it. */
function deliverAnswer(
	state: ProxyState,
	exchange: Exchange,
	socket: Socket,
	response: ServerResponse,
	fault: Fault | undefined,
	answer: UpstreamAnswer,
): void {
	const headers = endToEnd(answer.headers);
	const change = fault ? altered(fault, answer) : undefined;
	if (!change)
		return state.send(exchange, response, answer.status, headers, answer.body, 'answered');
	if (change.cut !== undefined) {
		if (response.destroyed) return state.settle(exchange, 'lost');
		exchange.sentStatus = 200;
		response.writeHead(200, { ...headers, 'content-length': change.body.length });
		response.write(change.body.subarray(0, change.cut), () =>
			state.resetConnection(exchange, socket, 'lost'),
		);
		return;
	}
	return state.send(exchange, response, 200, headers, change.body, 'altered');
}

/** Sends the request to the sandbox; resolves with its whole answer, or undefined when it failed. */
function forward(
	{ target, upstreamAgent }: ProxyContext,
	request: IncomingMessage,
	path: string,
	query: string,
	body: Buffer,
): Promise<UpstreamAnswer | undefined> {
	return new Promise((resolve) => {
		const headers = endToEnd(request.headers);
		headers.host = target.host;
		if (body.length > 0) headers['content-length'] = body.length;
		const upstream = httpRequest(
			{
				protocol: target.protocol,
				hostname: target.hostname,
				port: target.port,
				method: request.method,
				path: `${path}${query}`,
				headers,
				agent: upstreamAgent,
			},
			(answer) => {
				void readBody(answer).then((answerBody) => {
					if (answer.complete)
						resolve({
							status: answer.statusCode ?? 502,
							headers: answer.headers,
							body: answerBody,
						});
					else resolve(undefined);
				});
			},
		);
		upstream.on('error', () => resolve(undefined));
		upstream.end(body);
	});
}

/** The proxy's own answer under a redirect, error, rate-limited or quota fault; undefined for the rest. */
function injected(
	{ canary, origin, target }: ProxyContext,
	fault: Fault,
	scopeName: string,
	path: string,
	query: string,
): OwnAnswer | undefined {
	const prefix = scopeName === '' ? '' : `/m/${scopeName}`;
	switch (fault.kind) {
		case 'redirect': {
			const location =
				fault.to === 'canary'
					? `${canary.origin}${prefix}${path}${query}`
					: `${origin}${prefix}${fault.path ?? path}${query}`;
			return { status: fault.status, headers: { location }, body: Buffer.alloc(0) };
		}
		case 'error':
			return errorAnswer(fault);
		case 'rate-limited':
			return rateLimitedAnswer(fault);
		case 'quota-exceeded':
			return quotaExceededAnswer(fault, target);
		default:
			return undefined;
	}
}

/** A gateway's error: the service's envelope, an HTML page or nothing, with the fault's headers. */
function errorAnswer(fault: Extract<Fault, { kind: 'error' }>): OwnAnswer {
	const headers: OutgoingHttpHeaders = { ...fault.headers };
	if (fault.body === 'envelope') {
		const code = fault.code ?? defaultFaultCode(fault.status);
		const answer = json({
			error: {
				code,
				message: fault.message ?? `Injected by the fault proxy: ${fault.status} ${code}.`,
			},
		});
		return {
			status: fault.status,
			headers: { ...answer.headers, ...headers },
			body: answer.body,
		};
	}
	if (fault.body === 'html')
		return {
			status: fault.status,
			headers: { 'content-type': 'text/html', ...headers },
			body: Buffer.from(GATEWAY_PAGE(fault.status)),
		};
	return { status: fault.status, headers, body: Buffer.alloc(0) };
}

/** 429 `rate_limited` with the fault's header values exactly as given (an omitted one is not sent). */
function rateLimitedAnswer(fault: Extract<Fault, { kind: 'rate-limited' }>): OwnAnswer {
	const headers: OutgoingHttpHeaders = {};
	if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
	if (fault.limit !== undefined) headers['x-ratelimit-limit'] = fault.limit;
	if (fault.remaining !== undefined) headers['x-ratelimit-remaining'] = fault.remaining;
	if (fault.reset !== undefined) headers['x-ratelimit-reset'] = fault.reset;
	const retryAfter = Number(fault.retryAfter);
	const limit = Number(fault.limit);
	const answer = json({
		error: {
			code: 'rate_limited',
			message: 'Rate limit reached (injected by the fault proxy).',
			details: fault.details ?? {
				limit: Number.isFinite(limit) ? limit : 0,
				...(Number.isFinite(retryAfter) ? { retry_after: retryAfter } : {}),
			},
		},
	});
	return { status: 429, headers: { ...answer.headers, ...headers }, body: answer.body };
}

/** 429 `quota_exceeded` as the service words it, Retry-After until next month unless given. */
function quotaExceededAnswer(
	fault: Extract<Fault, { kind: 'quota-exceeded' }>,
	target: URL,
): OwnAnswer {
	const retryAfter = fault.retryAfter ?? String(secondsToNextMonth());
	const seconds = Number(retryAfter);
	const answer = json({
		error: {
			code: 'quota_exceeded',
			message:
				'Monthly quota reached (100 of 100 decisions). It resets on the first day of next month (UTC); upgrading resumes service immediately.',
			details: {
				used: 100,
				quota: 100,
				...(Number.isFinite(seconds) ? { retry_after: seconds } : {}),
				upgrade_url: `${target.origin}/app/settings/billing`,
			},
		},
	});
	return {
		status: 429,
		headers: { ...answer.headers, 'retry-after': retryAfter },
		body: answer.body,
	};
}

/** The answer the client gets for the sandbox's 2xx answer under a patch/replace fault; undefined = unchanged. */
function altered(fault: Fault, answer: UpstreamAnswer): { body: Buffer; cut?: number } | undefined {
	if (answer.status < 200 || answer.status >= 300) return undefined;
	if (fault.kind === 'patch') {
		let parsed: unknown;
		try {
			parsed = JSON.parse(answer.body.toString('utf8'));
		} catch {
			return undefined;
		}
		if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
		const patched: Record<string, unknown> = { ...(parsed as Record<string, unknown>) };
		for (const name of fault.remove ?? []) delete patched[name];
		Object.assign(patched, fault.set ?? {});
		return { body: Buffer.from(JSON.stringify(patched)) };
	}
	if (fault.kind !== 'replace') return undefined;
	const half = Math.max(1, Math.floor(answer.body.length / 2));
	switch (fault.body) {
		case 'not-json':
			return {
				body: Buffer.from(
					'<html><body><h1>OK</h1><p>Your request was processed.</p></body></html>',
				),
			};
		case 'truncated':
			return { body: answer.body.subarray(0, half) };
		case 'cut':
			return { body: answer.body, cut: half };
		case 'error-envelope':
			return {
				body: Buffer.from(
					JSON.stringify({
						error: {
							code: 'internal_error',
							message: 'Injected by the fault proxy: an error envelope with 200.',
						},
					}),
				),
			};
		case 'empty':
			return { body: Buffer.alloc(0) };
		case 'json-array':
			return { body: Buffer.concat([Buffer.from('['), answer.body, Buffer.from(']')]) };
	}
}

/** A scope's counters from its exchange log, with the canary hits that came from it. */
function countersOf(scope: Scope, name: string, canaryHits: CanaryHit[]): ProxyCounters {
	const counters: ProxyCounters = {
		received: {},
		forwarded: {},
		upstreamOk: {},
		upstreamRateLimited: {},
		lostAfterAnswer: {},
		altered: {},
		faults: { ...scope.faults },
		canaryHits: canaryHits.filter((hit) =>
			name === '' ? !SCOPE_RE.test(hit.url) : hit.url.startsWith(`/m/${name}/`),
		),
	};
	const add = (counts: CountsByRoute, key: string) => (counts[key] = (counts[key] ?? 0) + 1);
	for (const exchange of scope.exchanges) {
		const key = `${exchange.method} ${exchange.path}`;
		add(counters.received, key);
		if (exchange.forwarded) add(counters.forwarded, key);
		if (
			exchange.upstreamStatus !== undefined &&
			exchange.upstreamStatus >= 200 &&
			exchange.upstreamStatus < 300
		)
			add(counters.upstreamOk, key);
		if (exchange.upstreamStatus === 429) add(counters.upstreamRateLimited, key);
		if (exchange.outcome === 'lost' && exchange.upstreamStatus !== undefined)
			add(counters.lostAfterAnswer, key);
		if (exchange.outcome === 'altered') add(counters.altered, key);
	}
	return counters;
}
