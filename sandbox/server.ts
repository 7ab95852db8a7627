import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { RATE_LIMIT_HEADERS } from '../src/contract';
import * as api from './api';
import { sleep } from './clock';
import { controlGuard, controlRoutes, type ControlDefaults } from './control';
import { ApiError, type Result } from './errors';
import { FaultInjector, type FiredFault } from './faults';
import { appPages } from './pages';
import type { Plan } from './plans';
import { SandboxStore, StoreFile, type Account } from './store';

export { DEMO_KEYS } from './seed';
export { SandboxStore } from './store';

export interface SandboxOptions {
	/** Default 127.0.0.1. */
	host?: string;
	/** Default 8787; 0 = a free port. */
	port?: number;
	/** Persist the state to this JSON file: loaded at start when present, saved after changes (debounced) and on close. */
	dataFile?: string;
	/**
	 * The control surface under /_control. Default: on when the host is a loopback address, off
	 * otherwise; `true` forces it on whatever the host, `false` turns it off.
	 */
	control?: boolean;
	/** The local drafter for `describe` (otherwise 503 generation_unavailable). Default false. */
	drafter?: boolean;
	/** Seed of the fault-injection PRNG when a rule set gives none. Default 1. */
	faultSeed?: number;
	/** One line per request: method, path, status, ms. Never headers, keys, query strings or bodies. Default false. */
	log?: boolean;
	/** How long the primary engine hangs under a `primary_timeout` fault before the fallback answers. Default 250 ms. */
	primaryTimeoutMs?: number;
	/**
	 * Called after each API response is sent (not for /_control), with when the request arrived and
	 * when its answer left, from `performance.now()`. The benchmark uses it to see the service's
	 * side: time spent per request and requests in flight. Never given headers or bodies.
	 */
	onExchange?: (exchange: SandboxExchange) => void;
}

export interface SandboxExchange {
	method: string;
	path: string;
	status: number;
	receivedAt: number;
	sentAt: number;
}

export interface RunningSandbox {
	/** http://127.0.0.1:PORT */
	origin: string;
	/** origin + '/v1' */
	baseUrl: string;
	store: SandboxStore;
	/** Whether /_control is served. */
	control: boolean;
	close(): Promise<void>;
}

export const DEFAULT_PORT = 8787;
export const DEFAULT_PRIMARY_TIMEOUT_MS = 250;
/** Bodies over this size get 413 `payload_too_large` (our choice; docs/api.md is silent). */
const BODY_MAX_BYTES = 1024 * 1024;

export function isLoopback(host: string): boolean {
	const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
	return (
		bare === 'localhost' || bare === '::1' || /^127\./.test(bare) || /^::ffff:127\./.test(bare)
	);
}

/** What one request carries through the hooks, the handler and the answer. */
interface RequestState {
	started: number;
	fault?: FiredFault;
	account?: Account;
	key?: string;
	/** Set once a request took a unit of the rate budget (null for plans without a limit). */
	rateToken?: number | null;
	/** The route counts against the per-minute budget and answers with its headers. */
	rateLimited?: boolean;
	/** Set once a decide took a unit of the monthly quota. */
	quotaPeriod?: string;
	finished: boolean;
}

type Log = (method: string, url: string, status: number | string, ms: number) => void;

/** What the hooks, the answers and the routes of one sandbox share. */
interface Sandbox {
	app: FastifyInstance;
	store: SandboxStore;
	faults: FaultInjector;
	runtime: api.Runtime;
	states: WeakMap<FastifyRequest, RequestState>;
	log?: Log;
}

type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** How requests are answered: every answer, error and dropped connection goes through these. */
interface Answers {
	/** Sends an answer (see `answersOf`). */
	finish(request: FastifyRequest, reply: FastifyReply, result: Result): FastifyReply;
	/** Answers a thrown error: the API's own, fastify's 4xx, or a 500 logged to stderr. */
	fail(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply;
	/** Drops the connection without an answer (a `reset` fault). */
	destroy(request: FastifyRequest, reply: FastifyReply, what: string): FastifyReply;
	/** A route handler from a function of the request to its result. */
	handle(fn: (request: FastifyRequest) => Result | Promise<Result>): Handler;
}

function pathOf(url: string): string {
	const query = url.indexOf('?');
	return query < 0 ? url : url.slice(0, query);
}

function isControlPath(path: string): boolean {
	return path === '/_control' || path.startsWith('/_control/');
}

function bearer(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
	return match ? match[1] : undefined;
}

/** The metered calls: POST /decide/{slug} and POST /decisions. */
function isRateLimitedRoute(method: string, url: string): boolean {
	return method === 'POST' && /^\/v1\/(decide\/|decisions(\?|$))/.test(url);
}

function rateHeaders(store: SandboxStore, key: string, plan: Plan): Record<string, string> {
	const info = store.rate(key, plan);
	if (!info) return {}; // the unlimited plan: no rate limit, no headers
	const resetMs = info.resetMs > 0 ? info.resetMs : store.rateWindowMs;
	return {
		[RATE_LIMIT_HEADERS.limit]: String(info.limit),
		[RATE_LIMIT_HEADERS.remaining]: String(info.remaining),
		[RATE_LIMIT_HEADERS.reset]: String(Math.max(1, Math.ceil(resetMs / 1000))),
	};
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
	const host = options.host ?? '127.0.0.1';
	const controlOn = options.control ?? isLoopback(host);
	const defaults = {
		drafter: options.drafter ?? false,
		primaryTimeoutMs: options.primaryTimeoutMs ?? DEFAULT_PRIMARY_TIMEOUT_MS,
	};
	const store = new SandboxStore();
	if (options.dataFile) store.loadFile(options.dataFile);
	const storeFile = options.dataFile ? new StoreFile(store, options.dataFile) : undefined;
	const sandbox: Sandbox = {
		store,
		faults: new FaultInjector(options.faultSeed ?? 1),
		runtime: { store, origin: '', config: { ...defaults } },
		states: new WeakMap(),
		log: options.log
			? (method, url, status, ms) => {
					process.stdout.write(`${method} ${pathOf(url)} ${status} ${ms.toFixed(1)}ms\n`);
				}
			: undefined,
		app: createApp(),
	};
	const { app, faults, runtime } = sandbox;
	const answers = answersOf(sandbox);

	app.setErrorHandler((error, request, reply) => answers.fail(request, reply, error));
	app.setNotFoundHandler((request, reply) =>
		answers.finish(
			request,
			reply,
			new ApiError('not_found', `No route ${request.method} ${pathOf(request.url)}.`).toResult(),
		),
	);
	app.addHook('onRequest', onEveryRequest(sandbox, answers, controlOn));
	addResponseHooks(sandbox, options.onExchange);
	// The API, under /v1: authentication on every route, the rate limit on the metered ones.
	await app.register(
		async (v1) => {
			v1.addHook('onRequest', authenticate(sandbox, answers));
			apiRoutes(v1, sandbox, answers);
		},
		{ prefix: '/v1' },
	);
	// The pages behind the links the API hands out (review_url, upgrade_url): HTML, no key.
	await app.register(async (pages) => appPages(pages, sandbox.store), { prefix: '/app' });
	if (controlOn) {
		await app.register(async (control) => controlSurface(control, sandbox, answers, defaults), {
			prefix: '/_control',
		});
	}

	await app.listen({ host, port: options.port ?? DEFAULT_PORT });
	const address = app.server.address() as AddressInfo;
	const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
	const origin = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${address.port}`;
	runtime.origin = origin;

	let closing: Promise<void> | undefined;
	return {
		origin,
		baseUrl: `${origin}/v1`,
		store,
		control: controlOn,
		close() {
			closing ??= (async () => {
				// Held requests go on and the holds' timers stop: nothing waits for a max wait.
				faults.close();
				await app.close();
				await storeFile?.close();
			})();
			return closing;
		},
	};
}

/** The fastify instance: bounded bodies, and any content type parsed as JSON (empty: no body). */
function createApp(): FastifyInstance {
	const app: FastifyInstance = Fastify({
		logger: false,
		bodyLimit: BODY_MAX_BYTES,
		forceCloseConnections: true,
		routerOptions: { maxParamLength: 2048 },
	});
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
		const text = typeof body === 'string' ? body : body.toString('utf8');
		if (text.trim() === '') {
			done(null, undefined);
			return;
		}
		try {
			done(null, JSON.parse(text));
		} catch (error) {
			done(
				new ApiError('invalid_json', `The body is not valid JSON: ${(error as Error).message}`),
				undefined,
			);
		}
	});
	return app;
}

function answersOf({ store, states, log }: Sandbox): Answers {
	const destroy = (request: FastifyRequest, reply: FastifyReply, what: string): FastifyReply => {
		const state = states.get(request);
		log?.(
			request.method,
			request.url,
			what,
			performance.now() - (state?.started ?? performance.now()),
		);
		reply.hijack();
		request.raw.socket?.destroy();
		return reply;
	};

	/**
	 * Sends an answer. Every answer goes through here: an error gives back the rate and quota
	 * units the request took (errors count against neither), authenticated /v1 answers get the
	 * rate-limit headers, and `reset: after` / `malformed` faults act on the finished answer.
	 */
	const finish = (request: FastifyRequest, reply: FastifyReply, result: Result): FastifyReply => {
		const state = states.get(request);
		const headers: Record<string, string> = { ...result.headers };
		if (state && !state.finished) {
			state.finished = true;
			if (state.account && state.key) {
				const failed = result.status < 200 || result.status >= 300;
				if (failed && state.rateToken !== undefined) store.releaseRate(state.key, state.rateToken);
				if (failed && state.quotaPeriod !== undefined)
					store.releaseQuota(state.account, state.quotaPeriod);
				if (state.rateLimited)
					Object.assign(headers, rateHeaders(store, state.key, store.plan(state.account)));
			}
		}
		const fault = state?.fault;
		if (fault?.resetAfter) return destroy(request, reply, 'reset-after');
		if (fault?.malformed) {
			const text = JSON.stringify(result.body) ?? '{}';
			return reply
				.code(200)
				.headers(headers)
				.header('content-type', 'application/json; charset=utf-8')
				.send(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
		}
		return reply.code(result.status).headers(headers).send(result.body);
	};

	const fail = (request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply => {
		if (error instanceof ApiError) return finish(request, reply, error.toResult());
		const status = (error as { statusCode?: number }).statusCode;
		if (status === 413) {
			return finish(
				request,
				reply,
				new ApiError(
					'payload_too_large',
					`The body is larger than ${BODY_MAX_BYTES} bytes.`,
				).toResult(),
			);
		}
		if (typeof status === 'number' && status >= 400 && status < 500) {
			return finish(
				request,
				reply,
				new ApiError('invalid_request', (error as Error).message, undefined, {}, status).toResult(),
			);
		}
		process.stderr.write(
			`sandbox: internal error on ${request.method} ${pathOf(request.url)}: ${(error as Error)?.stack ?? String(error)}\n`,
		);
		return finish(
			request,
			reply,
			new ApiError('internal_error', 'Internal error in the sandbox.').toResult(),
		);
	};

	const handle =
		(fn: (request: FastifyRequest) => Result | Promise<Result>): Handler =>
		async (request, reply) => {
			try {
				return finish(request, reply, await fn(request));
			} catch (error) {
				return fail(request, reply, error);
			}
		};

	return { finish, fail, destroy, handle };
}

/** Every request: its state, the JSON-for-any-content-type rule, and fault injection (not on /_control). */
function onEveryRequest(sandbox: Sandbox, answers: Answers, controlOn: boolean) {
	const { states, faults } = sandbox;
	return async (request: FastifyRequest, reply: FastifyReply) => {
		const state: RequestState = { started: performance.now(), finished: false };
		states.set(request, state);
		const path = pathOf(request.url);
		const isControl = isControlPath(path);
		// Checked before the content type is rewritten below: the control surface refuses non-JSON bodies.
		if (isControl && controlOn) {
			const refused = controlGuard(request.headers);
			if (refused) return answers.finish(request, reply, refused.toResult());
		}
		if (request.raw.headers['content-type'] !== undefined)
			request.raw.headers['content-type'] = 'application/json';
		if (isControl) return;
		const fault = faults.next(request.method, path);
		if (!fault) return;
		state.fault = fault;
		// A `hold_until` rule keeps its requests here until enough of them arrived (or its max wait).
		if (fault.hold) await fault.hold;
		// A decide that reaches the engine waits there (in api.decide); every other request here.
		const waitsInEngine =
			fault.latencyAt === 'engine' &&
			request.method === 'POST' &&
			path.startsWith('/v1/decide/') &&
			fault.status === undefined &&
			!fault.resetBefore;
		if (!waitsInEngine) await sleep(fault.latencyMs);
		if (fault.resetBefore) return answers.destroy(request, reply, 'reset-before');
		if (fault.status !== undefined) {
			const error = injectedError(sandbox, request, fault, fault.status);
			return answers.finish(request, reply, error.toResult());
		}
		return undefined;
	};
}

/** The error a fault with a status answers with; a 429 gets Retry-After and the API's details. */
function injectedError(
	{ store, runtime }: Sandbox,
	request: FastifyRequest,
	fault: FiredFault,
	status: number,
): ApiError {
	const code = fault.code ?? 'internal_error';
	const headers: Record<string, string> = {};
	let details: unknown;
	if (status === 429) {
		headers[RATE_LIMIT_HEADERS.retryAfter] = String(fault.retryAfter);
		const resolved = store.resolveKey(bearer(request.headers.authorization));
		const plan = resolved.status === 'ok' ? store.plan(resolved.account) : undefined;
		if (code === 'rate_limited')
			details = { limit: plan?.rateLimit ?? 0, retry_after: fault.retryAfter };
		if (code === 'quota_exceeded' && resolved.status === 'ok') {
			details = {
				used: store.usage(resolved.account).used,
				quota: plan?.quota ?? 0,
				retry_after: fault.retryAfter,
				upgrade_url: `${runtime.origin}/app/settings/billing`,
			};
		}
	}
	const message = fault.message ?? `Injected fault: ${status} ${code}.`;
	return new ApiError(code, message, details, headers, status);
}

/** After each answer: `onExchange` (API requests only), then the log line. */
function addResponseHooks(
	{ app, states, log }: Sandbox,
	onExchange: SandboxOptions['onExchange'],
): void {
	if (onExchange) {
		app.addHook('onResponse', async (request, reply) => {
			const path = pathOf(request.url);
			const state = states.get(request);
			if (!state || isControlPath(path)) return;
			onExchange({
				method: request.method,
				path,
				status: reply.statusCode,
				receivedAt: state.started,
				sentAt: performance.now(),
			});
		});
	}
	if (log) {
		app.addHook('onResponse', async (request, reply) => {
			log(request.method, request.url, reply.statusCode, reply.elapsedTime);
		});
	}
}

/** The /v1 hook: the key on every route, and a unit of the per-minute budget on the metered ones. */
function authenticate({ store, states }: Sandbox, answers: Answers) {
	return async (request: FastifyRequest, reply: FastifyReply) => {
		const state = states.get(request);
		if (!state || reply.sent) return undefined;
		const resolved = store.resolveKey(bearer(request.headers.authorization));
		if (resolved.status !== 'ok') {
			const message = {
				missing: 'Missing API key: send the header "Authorization: Bearer <API key>".',
				unknown: 'Invalid API key.',
				revoked: 'This API key was revoked: create a new key in the app under Settings, API keys.',
			}[resolved.status];
			return answers.finish(request, reply, new ApiError('unauthorized', message).toResult());
		}
		state.account = resolved.account;
		state.key = resolved.key;
		// The API ties the per-minute budget to the metered calls: POST /decide/{slug}
		// (whose every response carries the headers) and POST /decisions (429 listed).
		// Reads and feedback are not limited.
		if (!isRateLimitedRoute(request.method, request.url)) return undefined;
		state.rateLimited = true;
		const plan = store.plan(resolved.account);
		const reserved = store.reserveRate(resolved.key, plan);
		if (!reserved.ok) {
			const retryAfter = Math.max(1, Math.ceil(reserved.info.resetMs / 1000));
			return answers.finish(
				request,
				reply,
				new ApiError(
					'rate_limited',
					`Rate limit reached: ${reserved.info.limit} requests per minute for this key. Retry in ${retryAfter} s.`,
					{ limit: reserved.info.limit, retry_after: retryAfter },
					{ [RATE_LIMIT_HEADERS.retryAfter]: String(retryAfter) },
				).toResult(),
			);
		}
		state.rateToken = reserved.token;
		return undefined;
	};
}

/** The API's routes (sandbox/api.ts does the work), for requests `authenticate` let through. */
function apiRoutes(v1: FastifyInstance, { runtime, states }: Sandbox, { handle }: Answers): void {
	const accountOf = (request: FastifyRequest): Account => {
		const account = states.get(request)?.account;
		if (!account) throw new Error('internal: unauthenticated request reached a handler');
		return account;
	};
	type SlugParams = { Params: { slug: string } };

	v1.post<SlugParams>(
		'/decide/:slug',
		handle((request) => {
			const state = states.get(request);
			const params = request.params as { slug: string };
			return api.decide(
				runtime,
				{
					account: accountOf(request),
					primaryTimeout: state?.fault?.primaryTimeout ?? false,
					engineLatencyMs: state?.fault?.latencyAt === 'engine' ? state.fault.latencyMs : 0,
					onQuotaReserved: (period) => {
						if (state) state.quotaPeriod = period;
					},
				},
				params.slug,
				request.body,
			);
		}),
	);
	v1.post(
		'/runs/:run_id/feedback',
		handle((request) =>
			api.feedback(
				runtime,
				accountOf(request),
				(request.params as { run_id: string }).run_id,
				request.body,
			),
		),
	);
	v1.post(
		'/decisions',
		handle((request) => api.createDecision(runtime, accountOf(request), request.body)),
	);
	v1.get(
		'/templates',
		handle((request) => {
			accountOf(request);
			return api.templates(request.query);
		}),
	);
	v1.get(
		'/decisions',
		handle((request) => api.listDecisions(runtime, accountOf(request))),
	);
	v1.get(
		'/decisions/:slug',
		handle((request) =>
			api.getDecision(runtime, accountOf(request), (request.params as { slug: string }).slug),
		),
	);
}

/** The control surface's routes (sandbox/control.ts), under /_control. */
function controlSurface(
	control: FastifyInstance,
	{ runtime, faults }: Sandbox,
	{ handle }: Answers,
	defaults: ControlDefaults,
): void {
	for (const route of controlRoutes(runtime, faults, defaults)) {
		control.route({
			method: route.method,
			url: route.url,
			handler: handle((request) =>
				route.handler({
					body: request.body,
					query: request.query,
					params: request.params as Record<string, string>,
				}),
			),
		});
	}
}
