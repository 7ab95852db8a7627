/** Figures of one process from /proc: CPU time and resident memory (Linux); the machine a report comes from. */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

/** The machine a report's figures come from. */
export const machine = () => ({
	cpus: cpus().length,
	model: cpus()[0]?.model,
	memoryGb: Math.round(totalmem() / 2 ** 30),
});

const TICKS_PER_SECOND = 100;

/** User + system CPU time of the process, in milliseconds. */
export function cpuMs(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	// Fields 14 and 15 of stat (utime, stime); the slice starts at field 3.
	return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
	const line = readFileSync(`/proc/${pid}/status`, 'utf8')
		.split('\n')
		.find((entry) => entry.startsWith(`${field}:`));
	return Number(line?.replace(/\D+/g, '') ?? 0);
}

export const rssMb = (pid: number) => statusKb(pid, 'VmRSS') / 1024;
export const peakRssMb = (pid: number) => statusKb(pid, 'VmHWM') / 1024;

/** Resets the peak-RSS mark, so VmHWM then reports the peak of what follows. */
export function resetPeakRss(pid: number): void {
	writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** CPU time the whole machine spent busy (every core, every process), in milliseconds. */
export function machineBusyMs(): number {
	const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1);
	// user nice system idle iowait irq softirq steal: all but idle and iowait.
	const busy = [0, 1, 2, 5, 6, 7].reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
	return (busy * 1000) / TICKS_PER_SECOND;
}
