package dev.memwall.join;

import dev.memwall.core.machine.MachineProfile;
import dev.memwall.core.partition.RadixPlan;
import dev.memwall.join.common.JoinAlgorithm;
import dev.memwall.join.common.JoinType;
import dev.memwall.join.inspector.InspectorJoin;
import dev.memwall.join.prefetch.PrefetchTuning;
import dev.memwall.join.prefetch.PrefetchingHashJoin;
import java.nio.file.Path;
import java.util.List;

/**
 * The options of one {@link Join} as they stood when a terminal method was called: what
 * {@link JoinExecution} plans and runs with. Each component means what the {@link Join} method of
 * that name says; the defaults are resolved by the execution.
 *
 * @param radix null: the cost model chooses
 * @param profile null: {@link MachineProfile#current()}, resolved only where planning needs it
 * @param memoryLimit 0: a quarter of the budget's free memory
 * @param spillDirectory null: {@code java.io.tmpdir}
 * @param prefetchTuning null: from the profile
 * @param tupleBytes 0: the wider input's row width
 */
record JoinOptions(List<String> leftKeys, List<String> rightKeys, JoinType type, JoinAlgorithm algorithm,
    RadixPlan radix, boolean writeCombining, int probeGroup, int chunkPairs, MachineProfile profile, int threads,
    long memoryLimit, Path spillDirectory, long spillQuota, PrefetchingHashJoin.Mode prefetch,
    PrefetchTuning prefetchTuning, int tupleBytes, InspectorJoin.Phase inspectorPhase, boolean semiJoinReducer) {}
