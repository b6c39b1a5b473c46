/** A lifecycle handler's answer, shaped as the HTTP answer to a delivery: below 500 it is applied, 5xx is worth another try. */
export interface LifecycleAnswer {
  status: number;
  body: Record<string, unknown>;
}
