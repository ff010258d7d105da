"""Pigugnìn (Busca Reggiana): rules engine, observation encoding and PettingZoo AEC env."""
