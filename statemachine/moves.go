package statemachine

// work moves to the flow's task node, entering the flow if the monitor is watching.
func (s *step) work(f Flow) error {
	if s.pos.Node.State() == StatePolling {
		return s.move(string(f) + "_begin_work")
	}
	return s.move(string(f) + "_work")
}

// toAsk moves to the flow's question node, entering the flow if the monitor is watching.
func (s *step) toAsk(f Flow) error {
	if s.pos.Node.State() == StatePolling {
		return s.move(string(f) + "_begin_ask")
	}
	return s.move(string(f) + "_ask")
}

// workThen moves to the current flow's task node and hands out the task built by fn.
func (s *step) workThen(fn func() Action) (Action, error) {
	if err := s.work(s.pos.Node.Flow()); err != nil {
		return Action{}, err
	}
	return fn(), nil
}

// askThen moves to the current flow's question node and asks the question built by fn.
func (s *step) askThen(fn func() (Action, error)) (Action, error) {
	if err := s.toAsk(s.pos.Node.Flow()); err != nil {
		return Action{}, err
	}
	return fn()
}
