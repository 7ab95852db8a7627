import { checkCapacity } from './limiter';

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
