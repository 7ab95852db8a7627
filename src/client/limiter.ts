/** At most `capacity` tasks at once; the rest wait their turn in order. No timers involved. */
export class ConcurrencyLimiter {
	private active = 0;
	private readonly waiting: Array<() => void> = [];

	constructor(private readonly capacity: number) {
		if (!Number.isInteger(capacity) || capacity < 1)
			throw new RangeError('concurrency must be a whole number of at least 1');
	}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.active >= this.capacity) {
			await new Promise<void>((resolve) => this.waiting.push(resolve));
		} else {
			this.active += 1;
		}
		try {
			return await task();
		} finally {
			const next = this.waiting.shift();
			// Hand the slot straight to the next task, so `active` never drops and rises again.
			if (next) next();
			else this.active -= 1;
		}
	}
}
