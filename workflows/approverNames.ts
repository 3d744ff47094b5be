// The approver-name rule a run's decision handlers use. Before patch 'countersign-canonical-approvers' a run compared
// names as written (so "ANN" could complete a quorum "ann" started) and took any name its schema let through; a run
// recorded so replays so. patched() is asked only where the two rules disagree (two spellings of one person, a name
// the rule refuses), so a run that never met such a name carries no marker. Update validators leave no history and
// must add no marker: they use canonicalNames, which is what a live run's patched() answers anyway.
import { patched } from '@temporalio/workflow';
import { approverNameProblem, type NameRule, sameApprover } from '../contract/approverName';
import { PATCHES } from './patches';

export const runNames: NameRule = {
  same: (a, b) => a === b || (sameApprover(a, b) && patched(PATCHES.canonicalApprovers)),
  problem: (name) => {
    const problem = approverNameProblem(name);
    return problem !== undefined && patched(PATCHES.canonicalApprovers) ? problem : undefined;
  },
};
