// The contract's calls for one side only (minute windows or budget periods), made with the joint admission and
// settlement, so each implementation has one check-and-add (one Lua script in Redis) for both sides.
import type {
  Admission,
  AdmissionChecks,
  MinuteAdmission,
  MinuteCheck,
  PeriodAdjustment,
  PeriodAdmission,
  PeriodCheck,
  Settlement,
} from './counters.ts';

export abstract class OneSideCalls {
  abstract admit(checks: AdmissionChecks): Promise<Admission>;
  abstract settle(settlement: Settlement): Promise<void>;

  async admitMinute(checks: readonly MinuteCheck[]): Promise<MinuteAdmission> {
    const a = await this.admit({ minute: checks, period: [] });
    return {
      allowed: a.outcome === 'allowed',
      failed: a.outcome === 'refused' ? a.failed : -1,
      minute: a.minute,
      msLeft: a.msLeft,
    };
  }

  async adjustMinute(minute: number, adjustments: readonly { key: string; delta: number }[]): Promise<void> {
    await this.settle({ minute: { minute, adjustments } });
  }

  async admitPeriod(checks: readonly PeriodCheck[]): Promise<PeriodAdmission> {
    const a = await this.admit({ minute: [], period: checks });
    if (a.outcome === 'unseeded') return { outcome: 'unseeded', index: a.index, periodIds: a.periodIds };
    if (a.outcome === 'allowed') return { outcome: 'allowed', periodIds: a.periodIds, values: a.values };
    if (a.side === 'period') return { outcome: 'refused', failed: a.failed, periodIds: a.periodIds, values: a.values };
    throw new Error('a period admission was refused by a minute check it did not have');
  }

  async adjustPeriod(adjustments: readonly PeriodAdjustment[]): Promise<void> {
    await this.settle({ period: adjustments });
  }
}
