/**
 * Max Concurrency: how many decides one execution may have in flight at once, and the two ways
 * the client holds to it: `ConcurrencyLimiter` (the client's requests) and `forEachBounded` (the
 * node's items). It is a ceiling, not a pace: the key's rate gate (rate-gate.ts) lets through what
 * the plan's window has left and holds the rest until the reset, so the default lets a run that
 * fits the window go at once.
 */

/**
 * The default: the largest plan's window budget (Scale and Enterprise, 600 a minute), so a run
 * the window can take goes at once, as the HTTP Request node would send it, without its 429s.
 */
export const DEFAULT_MAX_CONCURRENCY = 600;
/** The most the option allows. */
export const MAX_IN_FLIGHT = 1_000;

/** A concurrency must be a whole number of at least 1: the one check of Max Concurrency. */
export function checkCapacity(capacity: number): void {
	if (!Number.isInteger(capacity) || capacity < 1)
		throw new RangeError('concurrency must be a whole number of at least 1');
}

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

/**
 * Runs `task(0)` … `task(count - 1)`, starting the next index whenever fewer than `limit` run. No
 * index starts once `shouldStop()` says so; tasks already running finish. Only the tasks in flight
 * hold state, whatever `count` is.
 */
export async function forEachBounded(
	count: number,
	limit: number,
	task: (index: number) => Promise<void>,
	shouldStop: () => boolean = () => false,
): Promise<void> {
	checkCapacity(limit);
	let next = 0;
	let running = 0;
	await new Promise<void>((resolve, reject) => {
		let failed = false;
		const launch = () => {
			while (!failed && running < limit && next < count && !shouldStop()) {
				const index = next++;
				running += 1;
				task(index).then(
					() => {
						running -= 1;
						launch();
					},
					(error: unknown) => {
						failed = true;
						reject(error);
					},
				);
			}
			if (running === 0 && !failed) resolve();
		};
		launch();
	});
}
