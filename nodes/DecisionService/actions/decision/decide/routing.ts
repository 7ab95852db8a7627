/**
 * Where a run goes, and what is written on its item: pure functions of the run and the saved
 * Outputs list, with no n8n context, so every status and type is unit-tested (test/unit/routing).
 */
import type { IDataObject } from 'n8n-workflow';
import { levelOf, type Run } from '../../../../../src/contract';
import { NO_LABEL_KEY } from '../../../outputs';

/** Output index of each route key, in the order configuredOutputs (outputs.ts) lays them out. */
export interface RouteLayout {
	indexOf: Map<string, number>;
	noLabel?: number;
	uncertain: number;
	pending: number;
	other: number;
	count: number;
}

/** The layout for the keys of the saved Outputs list: the keys, then Uncertain, Pending Review, Other. */
export function routeLayout(schemaKeys: readonly string[]): RouteLayout {
	const indexOf = new Map<string, number>();
	schemaKeys.forEach((key, index) => indexOf.set(key, index));
	const base = schemaKeys.length;
	return {
		indexOf,
		noLabel: indexOf.get(NO_LABEL_KEY),
		uncertain: base,
		pending: base + 1,
		other: base + 2,
		count: base + 3,
	};
}

/**
 * The outputs a run goes to, lowest index first. Pending and uncertain runs go to their outputs;
 * a classify run to every retained label (No Label when none); a route run to its choice; a score
 * run to its level. A key the layout does not know goes to Other, so nothing is dropped.
 */
export function targetsFor(run: Run, layout: RouteLayout): number[] {
	if (run.status === 'pending') return [layout.pending];
	if (run.status === 'uncertain') return [layout.uncertain];
	if (run.labels !== undefined) {
		if (run.labels.length === 0) return [layout.noLabel ?? layout.other];
		const targets = new Set(run.labels.map((label) => layout.indexOf.get(label) ?? layout.other));
		return [...targets].sort((a, b) => a - b);
	}
	const key = run.choice ?? levelOf(run);
	return [key === undefined ? layout.other : (layout.indexOf.get(key) ?? layout.other)];
}

/** The compact answer: what a workflow branch or an AI agent needs, nothing else. */
export function simplifyRun(run: Run): IDataObject {
	const answer: IDataObject = {
		run_id: run.run_id,
		status: run.status,
		confidence: run.confidence,
	};
	if (run.choice !== undefined) answer.choice = run.choice;
	if (run.score !== undefined) {
		answer.score = run.score;
		answer.level = levelOf(run);
	}
	if (run.labels !== undefined) answer.labels = run.labels;
	if (run.review_url !== undefined) answer.review_url = run.review_url;
	return answer;
}

/** What is written on the item: the whole run (with its level when scored), or the compact answer. */
export function answerOf(run: Run, simplify: boolean): IDataObject {
	if (simplify) return simplifyRun(run);
	// A run is parsed JSON, so every value is JSON: what IDataObject holds.
	const answer = { ...run } as IDataObject;
	if (run.raw_score !== undefined) answer.level = levelOf(run);
	return answer;
}
