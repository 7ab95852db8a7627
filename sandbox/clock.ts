/**
 * The sandbox's virtual clock: real time plus an offset that the control surface can move, so
 * tests can cross a month boundary or a retention period without waiting. Everything that
 * depends on time (rate windows, quota periods, retention, `updated_at`) reads this clock.
 */
export class VirtualClock {
	private offset: number;

	constructor(offsetMs = 0) {
		this.offset = offsetMs;
	}

	/** Milliseconds since the epoch, on the virtual clock. */
	now(): number {
		return Date.now() + this.offset;
	}

	iso(): string {
		return new Date(this.now()).toISOString();
	}

	get offsetMs(): number {
		return this.offset;
	}

	advance(ms: number): void {
		this.offset += ms;
	}

	/** Moves the clock so that `now()` is `epochMs` at this instant; time keeps flowing from there. */
	set(epochMs: number): void {
		this.offset = epochMs - Date.now();
	}

	reset(): void {
		this.offset = 0;
	}
}

/** `YYYY-MM` of a UTC calendar month: the quota period. */
export function periodOf(epochMs: number): string {
	return new Date(epochMs).toISOString().slice(0, 7);
}

/** Start of the next UTC calendar month after `epochMs`: when the quota resets. */
export function nextPeriodStart(epochMs: number): number {
	const date = new Date(epochMs);
	return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export function sleep(ms: number): Promise<void> {
	return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
