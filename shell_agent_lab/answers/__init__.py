"""Answers composed by code: the form a question asks for, the programs that compute it, and
the answer written from their results (pure logic and a guarded runner; no model, no notebook).

The agent asks the model for a program or a choice; everything here checks, runs and writes.
"""
