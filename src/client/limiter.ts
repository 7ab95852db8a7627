/** At most `capacity` tasks at once; the rest wait their turn in order. No timers involved. */
export class ConcurrencyLimiter {
	private active = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private readonly capacity: number) {
		checkCapacity(capacity);
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
		while (this.waiting.length > 0 && this.active < this.capacity) {
			this.active += 1;
			this.waiting.shift()!();
		}
	}
}

/** A concurrency must be a whole number of at least 1: the one check of Max Concurrency. */
export function checkCapacity(capacity: number): void {
	if (!Number.isInteger(capacity) || capacity < 1)
		throw new RangeError('concurrency must be a whole number of at least 1');
}
