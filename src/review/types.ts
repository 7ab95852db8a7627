// What a review page shows and what a person's submission gives back. The node builds a
// ReviewPage from the waiting items; this folder renders it, reads the submission and turns each
// pick into feedback. Nothing here knows n8n.

export type DecisionType = 'route' | 'score' | 'classify';

/** An option, a level or a label the person may pick. */
export interface ReviewAnswer {
	key: string;
	/** The output's display name (a rename, or the key). */
	label: string;
}

/** One field of what the decision was asked. */
export interface ReviewField {
	name: string;
	/** Already a display string. */
	value: string;
	/** Declared `pii` on the decision: masked unless the page shows personal data. */
	personal: boolean;
}

export interface ReviewItem {
	/**
	 * Position among the waiting items (0-based, as n8n counts); the form's field names carry it.
	 * A person reads it from 1 ("Item 1": form.ts, `itemName`).
	 */
	index: number;
	/** The run feedback is sent on; absent when the item has no run (a failed item). */
	runId?: string;
	/** What the decision was asked, in order. */
	fields: ReviewField[];
	/** The machine's status: `ok`, `uncertain`, `pending`, or a failure marker. */
	status: string;
	/**
	 * Keys the machine gave or guessed (route and score: 1 key; classify: 0..n, [] = no label);
	 * undefined when it has none (no answer, or a tie at the top: src/answer/kinds.ts). Agreeing with no
	 * guess is no confirmation: the pick is sent as a correction.
	 */
	machineAnswer?: string[];
	/** 0..1 */
	confidence?: number;
	probabilities: Array<{ key: string; value: number }>;
	/** Why the item is here, in words. */
	note?: string;
}

export interface ReviewPage {
	/** e.g. "Review: ticket-routing" */
	title: string;
	/** Free text from the workflow author. */
	instructions?: string;
	/** `threshold`: the decision's confidence threshold, named beside an item's confidence. */
	decision: { slug: string; name?: string; type: DecisionType; threshold?: number };
	/** Options, levels (lowest first) or labels, in the Outputs list's order. */
	answers: ReviewAnswer[];
	items: ReviewItem[];
	/** false: fields with `personal` are masked on the page. */
	showPersonalData: boolean;
	/** ISO date-time after which unreviewed items continue on their own. */
	expiresAt?: string;
}

/** A reviewed item. Classify: `keys` may be [] ("no label applies"); route and score: one key. */
export interface ReviewPick {
	index: number;
	keys: string[];
	note?: string;
}
