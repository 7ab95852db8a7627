/**
 * At most `capacity()` tasks at once; the rest wait their turn in order. The capacity may change
 * between calls (the adaptive in-flight target): a rise lets waiting tasks in when a task ends, a
 * fall lets no new task in until enough have ended. No timers involved.
 */
export class ConcurrencyLimiter {
	private active = 0;
	private readonly waiting: Array<() => void> = [];
	private readonly capacity: () => number;

	constructor(capacity: number | (() => number)) {
		if (typeof capacity === 'number') {
			checkCapacity(capacity);
			this.capacity = () => capacity;
		} else {
			this.capacity = capacity;
		}
	}

	/** Tasks running now. */
	get running(): number {
		return this.active;
	}

	async run<T>(task: () => Promise<T>): Promise<T> {
		// In order: a task arriving while others wait queues behind them, even when there is room.
		const admitted = new Promise<void>((resolve) => this.waiting.push(resolve));
		this.admit();
		await admitted;
		try {
			return await task();
		} finally {
			this.active -= 1;
			this.admit();
		}
	}

	/** Lets waiting tasks in, first come first served, while the capacity allows. */
	private admit(): void {
		while (this.waiting.length > 0 && this.active < this.allowed()) {
			this.active += 1;
			this.waiting.shift()!();
		}
	}

	private allowed(): number {
		return Math.max(1, Math.floor(this.capacity()));
	}
}

/** A fixed concurrency must be a whole number of at least 1 (a moving one is floored at 1). */
export function checkCapacity(capacity: number): void {
	if (!Number.isInteger(capacity) || capacity < 1)
		throw new RangeError('concurrency must be a whole number of at least 1');
}
