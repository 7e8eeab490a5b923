// Placeholder replaced below
export default function setup() {}
