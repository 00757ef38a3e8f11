package ops

import (
	"context"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
)

// Activity retries and failures: the SDK counts failed executions
// (temporal_activity_execution_failed_total) but not retries; this interceptor counts every
// attempt by activity and result, and the attempts that were retries.

// ActivityInterceptor is the worker interceptor that counts activity attempts into m
// (worker.Options.Interceptors).
func (m *Metrics) ActivityInterceptor() interceptor.WorkerInterceptor {
	return &workerInterceptor{m: m}
}

type workerInterceptor struct {
	interceptor.WorkerInterceptorBase
	m *Metrics
}

func (w *workerInterceptor) InterceptActivity(_ context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	a := &activityInbound{m: w.m}
	a.Next = next
	return a
}

type activityInbound struct {
	interceptor.ActivityInboundInterceptorBase
	m *Metrics
}

func (a *activityInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	out, err := a.Next.ExecuteActivity(ctx, in)
	info := activity.GetInfo(ctx)
	a.m.Attempt(info.ActivityType.Name, info.Attempt, err != nil)
	return out, err
}
