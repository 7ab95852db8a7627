/**
 * Which output index each entry of the saved Outputs list has, for Decide (Route to Outputs and
 * Single Output) and for Review: read from the outputs plan (plan.ts), the same plan the canvas
 * shows, so the items land where the canvas draws their outputs.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NO_LABEL_KEY, type OutputsListEntry } from './list';
import { outputsPlan, type PlannedOutput } from './plan';

/** A saved list as the plan reads it (entries may be given as bare keys, as tests do). */
function planOf(
	schema: ReadonlyArray<string | OutputsListEntry>,
	operation: 'decide' | 'review',
	outputMode: 'routeToOutputs' | 'singleOutput' = 'routeToOutputs',
): PlannedOutput[] {
	const entries = schema.map((entry) => (typeof entry === 'string' ? { id: entry } : entry));
	return outputsPlan({
		resource: 'decision',
		operation,
		outputMode,
		routes: { schema: entries },
	} as unknown as INodeParameters);
}

/** Output index of each route key and of the fixed outputs, as the plan lays them out. */
export interface OutputsLayout {
	indexOf: Map<string, number>;
	noLabel?: number;
	uncertain: number;
	pending: number;
	other: number;
	/** Outputs standing where n8n's error output was before a refresh added outputs (see ENTRY.errorKeeperPrefix). */
	errorKeepers: number[];
	/** The Audit output (copies of the confident answers Audit Share picked), when the list has one. */
	audit?: number;
	count: number;
}

/** Decide's layout under Route to Outputs: each output's index by its role in the plan. */
export function outputsLayout(schema: ReadonlyArray<string | OutputsListEntry>): OutputsLayout {
	const plan = planOf(schema, 'decide');
	const indexOf = new Map<string, number>();
	const errorKeepers: number[] = [];
	// A role listed twice (a hand-edited list) routes to its last output, as a key listed twice does.
	const last = new Map<PlannedOutput['role'], number>();
	plan.forEach((output, index) => {
		if (output.role === 'key') indexOf.set(output.id, index);
		else if (output.role === 'errorKeeper') errorKeepers.push(index);
		else last.set(output.role, index);
	});
	const audit = last.get('audit');
	return {
		indexOf,
		noLabel: indexOf.get(NO_LABEL_KEY),
		// The plan always has these three (added at the end when the list lacks them).
		uncertain: last.get('uncertain')!,
		pending: last.get('pending')!,
		other: last.get('other')!,
		errorKeepers,
		...(audit === undefined ? {} : { audit }),
		count: plan.length,
	};
}

/**
 * Where Single Output puts its items (All Items), and how many outputs it has: one with nothing
 * saved; with a saved list, the outputs Route to Outputs has stay before it, empty, and the
 * outputs kept where n8n's error output stood carry the failures (see the plan).
 */
export function singleOutputPlace(schema: ReadonlyArray<string | OutputsListEntry>): {
	index: number;
	count: number;
	errorKeepers: number[];
} {
	const plan = planOf(schema, 'decide', 'singleOutput');
	const errorKeepers: number[] = [];
	plan.forEach((output, index) => {
		if (output.role === 'errorKeeper') errorKeepers.push(index);
	});
	return {
		index: plan.findIndex((output) => output.role === 'allItems'),
		count: plan.length,
		errorKeepers,
	};
}

/** Output index of each answer key in Review, and of Not Reviewed. */
export interface ReviewLayout {
	indexOf: Map<string, number>;
	noLabel?: number;
	notReviewed: number;
	count: number;
}

/**
 * Review's layout: Not Reviewed first, then the same Outputs list as Decide without its fixed and
 * Audit entries, each key in its order, so the answer outputs line up with Decide's.
 */
export function reviewLayout(schema: ReadonlyArray<string | OutputsListEntry>): ReviewLayout {
	const plan = planOf(schema, 'review');
	const indexOf = new Map<string, number>();
	plan.forEach((output, index) => {
		if (output.role === 'key') indexOf.set(output.id, index);
	});
	return {
		indexOf,
		noLabel: indexOf.get(NO_LABEL_KEY),
		notReviewed: plan.findIndex((output) => output.role === 'notReviewed'),
		count: plan.length,
	};
}
