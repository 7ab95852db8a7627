import { checkCapacity } from './limiter';

/**
 * Runs `task(0)` … `task(count - 1)`, starting the next index whenever fewer than `limit()` run
 * (a fixed number, or a target that moves between tasks: the adaptive in-flight target). No index
 * starts once `shouldStop()` says so; tasks already running finish. Only the tasks in flight hold
 * state, whatever `count` is. The limit is read again each time a task ends, which is when the
 * adaptive target moves (it learns from answers).
 */
export async function forEachBounded(
	count: number,
	limit: number | (() => number),
	task: (index: number) => Promise<void>,
	shouldStop: () => boolean = () => false,
): Promise<void> {
	if (typeof limit === 'number') checkCapacity(limit);
	const allowed = () => Math.max(1, Math.floor(typeof limit === 'number' ? limit : limit()));
	let next = 0;
	let running = 0;
	await new Promise<void>((resolve, reject) => {
		let failed = false;
		const launch = () => {
			while (!failed && running < allowed() && next < count && !shouldStop()) {
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
