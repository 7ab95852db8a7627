/**
 * The layout of the saved Outputs list: which output index each entry has, for Decide (every shown
 * entry, the fixed ones where the list has them) and for Review (Not Reviewed first, then the
 * answers). Mirrors configuredOutputs (configured.ts), which must stay self-contained; a unit test
 * holds the two together.
 */
import {
	ENTRY,
	FIXED_ENTRY_IDS,
	NO_LABEL_KEY,
	isErrorKeeper,
	isFixedEntry,
	isMachineOnlyEntry,
	type OutputsListEntry,
} from './list';

/** Output index of each route key and of the fixed outputs, as configuredOutputs (configured.ts) lays them out. */
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

/**
 * The layout of the saved Outputs list: one output per shown entry in saved order (hidden entries
 * carry data; keys the user deleted keep an empty output), the fixed outputs where the list has them, or
 * after everything for a list saved as keys only. Mirrors configuredOutputs, which must stay
 * self-contained; a unit test holds the two together.
 */
export function outputsLayout(schema: ReadonlyArray<string | OutputsListEntry>): OutputsLayout {
	const indexOf = new Map<string, number>();
	const fixedAt = new Map<string, number>();
	const errorKeepers: number[] = [];
	let audit: number | undefined;
	let count = 0;
	for (const entry of schema) {
		const field: OutputsListEntry = typeof entry === 'string' ? { id: entry } : entry;
		if (field.display === false) continue;
		const isFixed = isFixedEntry(field.id);
		// A deleted key keeps its (empty) output: its items go to Other, no wire moves.
		if (field.removed === true && !isFixed) {
			count++;
			continue;
		}
		if (isFixed) fixedAt.set(field.id, count);
		else if (isErrorKeeper(field.id)) errorKeepers.push(count);
		else if (field.id === ENTRY.audit) audit = count;
		else indexOf.set(field.id, count);
		count++;
	}
	for (const id of FIXED_ENTRY_IDS) if (!fixedAt.has(id)) fixedAt.set(id, count++);
	return {
		indexOf,
		noLabel: indexOf.get(NO_LABEL_KEY),
		uncertain: fixedAt.get(ENTRY.uncertain)!,
		pending: fixedAt.get(ENTRY.pending)!,
		other: fixedAt.get(ENTRY.other)!,
		errorKeepers,
		...(audit === undefined ? {} : { audit }),
		count,
	};
}

/**
 * Where Single Output puts its items, and how many outputs it has. With no shown entry saved, one
 * output. With a saved list, every output Route to Outputs has stays in place, empty and marked "✕"
 * (n8n keeps wires by index when outputs change, so a wire drawn for billing stays on billing's
 * index), then a spare where n8n's error output stood, then the items' output. Mirrors the single
 * branch of configuredOutputs.
 */
export function singleOutputPlace(schema: ReadonlyArray<string | OutputsListEntry>): {
	index: number;
	count: number;
} {
	const shown = schema.some((entry) => typeof entry === 'string' || entry.display !== false);
	if (!shown) return { index: 0, count: 1 };
	const index = outputsLayout(schema).count + 1;
	return { index, count: index + 1 };
}

/** Output index of each answer key in Review, and of Not Reviewed. */
export interface ReviewLayout {
	indexOf: Map<string, number>;
	noLabel?: number;
	notReviewed: number;
	count: number;
}

/**
 * Review's layout: Not Reviewed first, then the same Outputs list as Decide without its fixed
 * entries (a person's answer is never uncertain or pending, and is always one of the keys): each
 * key keeps its rename and its order, so the answer outputs line up with Decide's. Mirrors the
 * review branch of configuredOutputs.
 */
export function reviewLayout(schema: ReadonlyArray<string | OutputsListEntry>): ReviewLayout {
	const indexOf = new Map<string, number>();
	let count = 1;
	for (const entry of schema) {
		const field: OutputsListEntry = typeof entry === 'string' ? { id: entry } : entry;
		if (field.display === false || isMachineOnlyEntry(field.id)) continue;
		// A deleted key keeps its (empty) output, as in Decide.
		if (!isErrorKeeper(field.id) && field.removed !== true) indexOf.set(field.id, count);
		count++;
	}
	return { indexOf, noLabel: indexOf.get(NO_LABEL_KEY), notReviewed: 0, count };
}
