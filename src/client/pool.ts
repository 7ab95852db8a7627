/**
 * Runs `task(0)` … `task(count - 1)` with at most `concurrency` running at once, each worker taking
 * the next index when its last task settles. No index starts once `shouldStop()` says so; tasks
 * already running finish. Only the tasks in flight hold state, whatever `count` is.
 */
export async function forEachBounded(
	count: number,
	concurrency: number,
	task: (index: number) => Promise<void>,
	shouldStop: () => boolean = () => false,
): Promise<void> {
	if (!Number.isInteger(concurrency) || concurrency < 1) {
		throw new RangeError('concurrency must be a whole number of at least 1');
	}
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < count && !shouldStop()) {
			const index = next++;
			await task(index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}
