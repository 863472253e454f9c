#!/usr/bin/env python3
"""Where a query's calling thread is not running its share of parallel work, from a wall-clock profile.

Reads async-profiler's collapsed stacks with thread names (scaling.sh's T:wall step: event=wall, threads,
collapsed; .xz is read as it is) and, per TPC-H query, splits the samples of the thread that runs it
(`main`) into: serial (outside any Workers.runAll step: nothing else of the query runs then), waiting for
the step's other tasks to end (imbalance, stragglers), starting the step's threads, and running its own
task. Prints the shares and the most frequent serial and waiting stacks.
Usage: serial.py PROFILE[.xz] [TOP]   (the main thread's run of each query counts, warm-ups included)
"""
import collections
import lzma
import sys


def frames_of(path):
    opener = lzma.open if path.endswith('.xz') else open
    with opener(path, 'rt') as lines:
        for line in lines:
            stack, count = line.rsplit(' ', 1)
            frames = stack.split(';')
            if frames[0].startswith('[main'):
                yield frames, int(count)


def short(frames, deepest):
    ours = [f.split('/')[-1] for f in frames if f.startswith('dev/memwall')]
    return ' < '.join(ours[-deepest:][::-1]) + ' | ' + frames[-1].split('/')[-1]


def main():
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    kinds = collections.defaultdict(collections.Counter)
    stacks = collections.defaultdict(collections.Counter)
    for frames, count in frames_of(sys.argv[1]):
        queries = [f.split('/')[-1].split('.')[0] for f in frames if '/tpch/query/Q' in f and f.endswith('.run')]
        if not queries:
            continue
        query = queries[0]
        step = next((i for i, f in enumerate(frames) if 'Workers.runAll' in f), None)
        if step is None:
            kind = 'serial'
        else:
            below = frames[step + 1] if step + 1 < len(frames) else ''
            kind = 'waiting' if 'awaitAll' in below else 'starting threads' if 'Thread' in below else 'own task'
        kinds[query][kind] += count
        if kind in ('serial', 'waiting'):
            stacks[query][kind + ': ' + short(frames[:step] if kind == 'waiting' else frames, 4)] += count
    for query in sorted(kinds, key=lambda q: int(q[1:])):
        total = sum(kinds[query].values())
        shares = ', '.join(f'{k} {100 * v / total:.0f}%' for k, v in kinds[query].most_common())
        print(f'{query}: {total} samples of its thread: {shares}')
        for stack, count in stacks[query].most_common(top):
            print(f'  {count:6d} {stack}')


if __name__ == '__main__':
    main()
