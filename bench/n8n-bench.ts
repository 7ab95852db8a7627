/** What the real-n8n benchmark parts share (bench/run.ts, bench/throughput.ts): the sandbox's control, webhooks, idle CPU, the service's timestamps. */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import type { RunningSandbox } from '../sandbox/server';
import type { N8nInstance } from '../harness/n8n-env';
import { cpuMs, median } from './measure';

/** A POST to the sandbox's control surface; throws unless it answers 2xx. */
export async function controlSandbox(
	sandbox: RunningSandbox,
	path: string,
	body: unknown,
): Promise<void> {
	const response = await request(`${sandbox.origin}/_control${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (response.statusCode >= 300)
		throw new Error(`control ${path}: ${response.statusCode} ${await response.body.text()}`);
	await response.body.dump();
}

/** The lowest of four 3-second windows of n8n's CPU use while idle: n8n may still be finishing start-up work in the first ones. */
export async function measureIdleCpu(pid: number): Promise<number> {
	const windows: number[] = [];
	for (let index = 0; index < 4; index++) {
		const before = cpuMs(pid);
		const started = performance.now();
		await new Promise((resolve) => setTimeout(resolve, 3_000));
		windows.push((cpuMs(pid) - before) / ((performance.now() - started) / 1000));
	}
	return Math.min(...windows);
}

/** n8n registers webhooks a moment after it reports ready: post empty runs until each answers. */
export async function waitForWebhooks(n8n: N8nInstance, paths: string[]): Promise<void> {
	for (const path of paths) {
		for (let attempt = 0; ; attempt++) {
			const response = await request(`${n8n.url}/webhook/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ items: [] }),
			});
			await response.body.dump();
			if (response.statusCode !== 404) break;
			if (attempt > 120) throw new Error(`webhook ${path} never registered`);
			await new Promise((resolve) => setTimeout(resolve, 250));
		}
	}
}

/** Runs of the account, as the sandbox recorded them: the successful decide calls, in time order. */
export function successTimes(sandbox: RunningSandbox, key: string): number[] {
	const account = sandbox.store.accountForKey(key);
	if (!account) return [];
	return [...account.runs.values()].map((run) => Date.parse(run.created_at)).sort((a, b) => a - b);
}

/**
 * Achieved ÷ plan rate, window by window as the service counts: the windows are rebuilt from the
 * successful requests (one starts at the first request after the previous one ended, as in the
 * sandbox); rate = requests before the last window ÷ time from the first request to the start of
 * the last window. A client that fills every window and starts the next one the moment it opens
 * scores 1.0, however long each burst takes to send. Null with fewer than two windows.
 */
export function sustainedRateRatio(
	timestamps: number[],
	limit: number,
	windowMs: number,
): number | null {
	const starts = windowStarts(timestamps, windowMs);
	if (starts.length < 2) return null;
	const lastStart = starts[starts.length - 1];
	const before = timestamps.filter((time) => time < lastStart).length;
	return before / ((lastStart - timestamps[0]) / 1000) / (limit / (windowMs / 1000));
}

/**
 * The service's windows rebuilt from the arrivals of the successful requests (sorted): one starts
 * at the first request after the previous one ended, as in the sandbox.
 */
export function windowStarts(timestamps: number[], windowMs: number): number[] {
	const starts: number[] = [];
	let windowEnd = -Infinity;
	for (const time of timestamps) {
		if (time >= windowEnd) {
			starts.push(time);
			windowEnd = time + windowMs;
		}
	}
	return starts;
}

/**
 * The makespan floor of a run on a fixed-window plan (issue 18): the fastest legal schedule spends
 * each window's budget at once, up to `cap` in flight, and waits for the reset:
 * (windows needed − 1) × window + the last window's items ÷ (cap ÷ latency) + the last answer's
 * time. `meanLatencyMs` is the scenario's mean answer time; `lastLatencyMs` the longest answer of
 * the last window (with a mix of latencies, the slow answer every contender waits for).
 */
export function makespanFloorMs(run: {
	items: number;
	budget: number;
	windowMs: number;
	cap: number;
	meanLatencyMs: number;
	lastLatencyMs: number;
}): number {
	const windows = Math.max(1, Math.ceil(run.items / run.budget));
	const last = run.items - (windows - 1) * run.budget;
	return (windows - 1) * run.windowMs + (last * run.meanLatencyMs) / run.cap + run.lastLatencyMs;
}

/** A figure over rounds: the one value, or the median with min–max in brackets; n/a when none. */
export function figure<Run>(runs: Run[], pick: (run: Run) => number | null, digits = 1): string {
	const values = runs
		.map(pick)
		.filter((value): value is number => value !== null && Number.isFinite(value));
	if (!values.length) return 'n/a';
	const format = (value: number) => value.toFixed(digits);
	return values.length === 1
		? format(values[0])
		: `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
}
